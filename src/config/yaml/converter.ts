/**
 * `yaml`'s document tree as plain data, each position in the SourceIndex; what a config cannot
 * hold (an alias of no anchor, a loop, a key twice, a merge of a non-map) as located issues.
 */
import { type Alias, type Document, isAlias, isMap, isScalar, isSeq, type Node } from "yaml";
import type { ConfigIssue, ConfigIssueCode } from "../issues.js";
import { pathText } from "../path-text.js";
import type { NodeOffsets, SourceIndex } from "../source-index.js";
import { setOwn } from "./plain-data.js";

export class Converter {
  private readonly done = new Map<Node, unknown>();
  private readonly inProgress = new Set<Node>();
  /** Aliases of no anchor: the file's data is not what was written, so no further checks. */
  unknownAliases = 0;
  /** Where the node being converted sits, for messages (the first path, for a reused node). */
  private readonly path: (string | number)[] = [];

  constructor(
    private readonly doc: Document,
    private readonly aliases: ReadonlyMap<Alias, Node>,
    private readonly index: SourceIndex,
    private readonly issues: ConfigIssue[],
  ) {}

  convert(node: unknown): unknown {
    if (node === null || node === undefined) return null;
    if (isAlias(node)) {
      const target = this.resolve(node);
      if (target !== undefined) return this.convert(target);
      // yaml reads it as null: `name: *star` meant as text would be "nothing", far from the cause.
      this.unknownAliases++;
      this.issue(
        node,
        `*${node.source} names no anchor: write &${node.source} on the value it stands for, before this alias; or, if this is text starting with *, put it in quotes`,
        "YAML_SYNTAX",
        this.path,
      );
      return null;
    }
    if (isScalar(node)) return scalarValue(node.value);
    const memo = this.done.get(node as Node);
    if (memo !== undefined) return memo;
    if (this.inProgress.has(node as Node)) {
      this.issue(node as Node, "an alias refers to a collection that contains it: YAML data must not loop");
      return null;
    }
    this.inProgress.add(node as Node);
    let result: unknown = null;
    if (isMap(node)) result = this.map(node);
    else if (isSeq(node)) result = this.seq(node);
    this.inProgress.delete(node as Node);
    this.done.set(node as Node, result);
    return result;
  }

  private map(node: import("yaml").YAMLMap): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const keys = new Map<string, { key: number; value: number }>();
    const offsets: NodeOffsets = { offset: node.range?.[0] ?? 0, keys };
    /** Each key written, as read, and where it was first written. */
    const written = new Map<string, { value: unknown; at: number }>();
    for (const pair of node.items) {
      const keyNode = pair.key as Node | null;
      const keyOffset = keyNode?.range?.[0] ?? offsets.offset;
      const valueOffset = this.writtenAt(pair.value) ?? keyOffset;
      if (isScalar(keyNode) && typeof keyNode.value === "symbol") {
        this.merge(out, keys, pair.value, keyNode);
        continue;
      }
      if (!isScalar(keyNode)) {
        this.issue(keyNode, "keys are names: a list or map cannot be a key");
        continue;
      }
      const key = String(keyNode.value);
      // `yaml` tells `1` and `"1"` apart; as data they are one name, and one value would be lost.
      const earlier = written.get(key);
      if (earlier !== undefined) {
        const first = this.index.position(earlier.at);
        const here = this.index.position(keyOffset);
        const where = first.line === here.line ? `column ${first.column}` : `line ${first.line}`;
        const how = earlier.value === keyNode.value ? "" : ", once as text and once not";
        this.issue(
          keyNode,
          `key "${key}" appears twice in this map (first at ${where}${how}): keep one (the YAML would silently drop the other)`,
          "DUPLICATE_KEY",
          [...this.path, key],
        );
      } else written.set(key, { value: keyNode.value, at: keyOffset });
      this.path.push(key);
      setOwn(out, key, this.convert(pair.value));
      this.path.pop();
      keys.set(key, { key: keyOffset, value: valueOffset });
    }
    this.index.record(out, offsets);
    return out;
  }

  /** YAML merge: keys already present (written before or after `<<`) win. */
  private merge(
    out: Record<string, unknown>,
    keys: Map<string, { key: number; value: number }>,
    value: unknown,
    at: Node,
  ): void {
    const source = isAlias(value) ? this.resolve(value) : value;
    const sources = isSeq(source) ? source.items : [source];
    for (const item of sources) {
      const resolved = isAlias(item) ? this.resolve(item) : item;
      if (!isMap(resolved)) {
        this.issue(at, "`<<` merges maps: write `<<: *anchor` where the anchor names a map");
        continue;
      }
      const converted = this.convert(resolved);
      // Null when the map is still being built (a loop, reported by convert): nothing to merge.
      if (typeof converted !== "object" || converted === null) continue;
      const merged = converted as Record<string, unknown>;
      const mergedKeys = this.index.offsetsOf(merged)?.keys;
      for (const [key, entry] of Object.entries(merged)) {
        if (keys.has(key)) continue;
        setOwn(out, key, entry);
        const where = mergedKeys?.get(key);
        if (where) keys.set(key, where);
      }
    }
  }

  /** Where a value was written: for an alias of a scalar (`id: *io`), the anchored one (`&io 0017`). */
  private writtenAt(node: unknown): number | undefined {
    const target = isAlias(node) ? this.resolve(node) : undefined;
    return ((isScalar(target) ? target : node) as Node | null)?.range?.[0];
  }

  /** Resolved in one pass beforehand (aliases.ts); yaml's own lookup is kept as a fallback. */
  private resolve(alias: Alias): Node | undefined {
    return this.aliases.get(alias) ?? alias.resolve(this.doc);
  }

  private seq(node: import("yaml").YAMLSeq): unknown[] {
    const out: unknown[] = [];
    const items: number[] = [];
    for (const item of node.items) {
      this.path.push(out.length);
      out.push(this.convert(item));
      this.path.pop();
      items.push(this.writtenAt(item) ?? node.range?.[0] ?? 0);
    }
    this.index.record(out, { offset: node.range?.[0] ?? 0, items });
    return out;
  }

  private issue(
    node: Node | null,
    message: string,
    code: ConfigIssueCode = "YAML_SYNTAX",
    path: readonly (string | number)[] = [],
  ): void {
    const { line, column } = this.index.position(node?.range?.[0] ?? 0);
    this.issues.push({ file: this.index.file, line, column, path: pathText(path), message, code });
  }
}

function scalarValue(value: unknown): unknown {
  if (typeof value === "bigint") {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value;
  }
  if (typeof value === "symbol") return value.description ?? "";
  return value;
}
