/**
 * Stage 1: bytes -> text -> a plain JSON-like value plus a SourceIndex of positions.
 * YAML 1.2 core schema, so `2026-12-01T00:00:00Z` stays a string (no implicit timestamps);
 * `<<` merge keys on; duplicate keys are errors. Integers come in as bigint so that an id
 * with more digits than a double holds is caught ("quote this id") rather than rounded.
 *
 * Two readers give the same answer: the fast one (yaml-events.ts) for files within its
 * reach, and `yaml` here, the reference, for the rest and for every file with an error.
 */
import {
  type Alias,
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
} from "yaml";
import { resolveAliases } from "./aliases.js";
import type { ConfigIssue, ConfigIssueCode } from "./issues.js";
import { pathText } from "./path-text.js";
import { setOwn } from "./plain-data.js";
import { type NodeOffsets, SourceIndex } from "./source-index.js";
import { readPlainYaml } from "./yaml-events.js";

export interface ParsedSource {
  /** The document as plain data; bigint where an integer is beyond the safe range. */
  value: unknown;
  index: SourceIndex;
  issues: ConfigIssue[];
  /** False when later stages would only report follow-on noise. */
  usable: boolean;
}

/** Decodes UTF-8 (a BOM is allowed) or reports where the first invalid byte is. */
export function decodeUtf8(bytes: Uint8Array, file: string): { text: string } | { issue: ConfigIssue } {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return {
      issue: fileIssue(file, "NOT_UTF8", "file is UTF-16; save it as UTF-8 (YAML configs are UTF-8)"),
    };
  }
  try {
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
    return { text };
  } catch {
    const bad = firstInvalidUtf8(bytes);
    const before = new TextDecoder("utf-8").decode(bytes.subarray(0, bad));
    const lines = before.split("\n");
    return {
      issue: {
        file,
        line: lines.length,
        column: (lines.at(-1)?.length ?? 0) + 1,
        path: "",
        message: `byte 0x${(bytes[bad] ?? 0).toString(16).padStart(2, "0")} at offset ${bad} is not UTF-8: save the file as UTF-8`,
        code: "NOT_UTF8",
      },
    };
  }
}

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const length =
      b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (length === 0 || i + length > bytes.length) return i;
    for (let k = 1; k < length; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    i += length;
  }
  return i;
}

function fileIssue(file: string, code: ConfigIssueCode, message: string): ConfigIssue {
  return { file, line: 0, column: 0, path: "", message, code };
}

/**
 * Reads one file's YAML: through the fast event reader when the file is within what it
 * covers (yaml-events.ts), else through `yaml`, which also explains every error.
 */
export function parseYaml(text: string, file: string): ParsedSource {
  const plain = readPlainYaml(text, file);
  if (plain !== undefined) return { ...plain, issues: [], usable: true };
  return parseYamlFully(text, file);
}

/** Reads one file's YAML with `yaml`: the reference reader, with located errors. */
export function parseYamlFully(text: string, file: string): ParsedSource {
  const lineCounter = new LineCounter();
  const index = new SourceIndex(file, lineCounter, text);
  const issues: ConfigIssue[] = [];
  try {
    return readDocument(text, index, lineCounter, issues);
  } catch (error) {
    // Defensive: every shape we know of is reported as an issue below; anything the yaml
    // package (or this converter) still throws on becomes a located issue too, so that
    // loadConfig only ever rejects with a ConfigError.
    issues.push({
      file,
      ...documentStart(text),
      path: "",
      message: `YAML: this document could not be read (${errorText(error)}): simplify its anchors, aliases and \`<<\` merge keys, and please report it as a doohctl bug`,
      code: "YAML_SYNTAX",
    });
    return { value: undefined, index, issues, usable: false };
  }
}

function readDocument(
  text: string,
  index: SourceIndex,
  lineCounter: LineCounter,
  issues: ConfigIssue[],
): ParsedSource {
  const file = index.file;
  const doc = parseDocument(text, {
    version: "1.2",
    schema: "core",
    merge: true,
    uniqueKeys: true,
    intAsBigInt: true,
    prettyErrors: false,
    lineCounter,
  });
  let usable = true;
  // A key written twice is reported by the converter, which knows its path and the first
  // occurrence; yaml's own report stands only where the converter does not run.
  const duplicates: ConfigIssue[] = [];
  for (const error of [...doc.errors, ...doc.warnings]) {
    const { line, column } = index.position(error.pos[0]);
    const { code, message, hint } = explainYamlError(error.code, error.message, text, error.pos);
    const issue: ConfigIssue = { file, line, column, path: "", message, ...(hint ? { hint } : {}), code };
    if (code === "DUPLICATE_KEY") duplicates.push(issue);
    else {
      usable = false;
      issues.push(issue);
    }
  }
  if (!usable) return { value: undefined, index, issues: [...issues, ...duplicates], usable };
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) {
    issues.push({
      file,
      line: 1,
      column: 1,
      path: "",
      message: "file is empty: a config starts with `version: 1`",
      code: "EMPTY_FILE",
    });
    return { value: undefined, index, issues, usable: false };
  }
  // A looping alias would make the converter recurse into a collection it is still building.
  const aliases = resolveAliases(doc, index);
  issues.push(...aliases.loops);
  if (aliases.loops.length > 0) return { value: undefined, index, issues, usable: false };
  const converter = new Converter(doc, aliases.targets, index, issues);
  const value = converter.convert(doc.contents);
  if (converter.unknownAliases > 0) return { value: undefined, index, issues, usable: false };
  return { value, index, issues, usable: true };
}

/** The first line holding content (not blank, a comment or a directive), for a file-wide issue. */
function documentStart(text: string): { line: number; column: number } {
  const lines = text.split("\n");
  const at = lines.findIndex(
    (line) => !/^\s*(#.*)?$/.test(line) && !line.startsWith("%") && line.trim() !== "---",
  );
  if (at === -1) return { line: 1, column: 1 };
  return { line: at + 1, column: (lines[at]?.search(/\S/) ?? 0) + 1 };
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message.split("\n")[0]}` : String(error);
}

function explainYamlError(
  code: string,
  message: string,
  text: string,
  pos: [number, number],
): { code: ConfigIssueCode; message: string; hint?: string | undefined } {
  switch (code) {
    // Text that YAML reads as syntax: a value with ": " in it, one starting with @ or `, or
    // text after a quoted value. Quoting the whole value is the fix, where the error is in
    // the value of a `key: value` line and the value is not a list or map written inline.
    case "BLOCK_AS_IMPLICIT_KEY": {
      const value = lineValue(text, pos[0]);
      if (
        value !== undefined &&
        pos[0] >= value.start &&
        value.text.includes(": ") &&
        !/^[[{"']/.test(value.text)
      ) {
        return {
          code: "YAML_SYNTAX",
          message:
            'YAML: this value holds ": ", which YAML reads as a key of a map: put the whole value in quotes',
          hint: `write ${yamlQuoted(value.text)}`,
        };
      }
      break;
    }
    case "BAD_SCALAR_START": {
      const value = lineValue(text, pos[0]);
      if (value !== undefined && pos[0] === value.start) {
        return {
          code: "YAML_SYNTAX",
          message: `YAML: a value cannot start with ${text.charAt(pos[0])} unquoted: put the whole value in quotes`,
          hint: `write ${yamlQuoted(value.text)}`,
        };
      }
      break;
    }
    case "UNEXPECTED_TOKEN": {
      const value = lineValue(text, pos[0]);
      if (
        !message.startsWith("Unexpected scalar at node end") ||
        value === undefined ||
        pos[0] <= value.start
      )
        break;
      if (/^["']/.test(value.text)) {
        return {
          code: "YAML_SYNTAX",
          message: "YAML: text follows a quoted value: put the whole value in quotes",
          hint: `write ${yamlQuoted(value.text)}`,
        };
      }
      if (/^[[{]/.test(value.text)) {
        return {
          code: "YAML_SYNTAX",
          message:
            "YAML: text follows the closing bracket: remove it, or put the whole value in quotes if it is text",
        };
      }
      break;
    }
    case "TAB_AS_INDENT":
      return { code: "TAB_INDENT", message: "a tab indents this line: YAML indents with spaces only" };
    case "DUPLICATE_KEY": {
      // The error points at the repeated key; its name runs to the colon on that line.
      const written = (text.slice(pos[0]).split("\n")[0] ?? "").split(":")[0]?.trim() ?? "";
      const key = /^(["'])(.*)\1$/.exec(written)?.[2] ?? written;
      return {
        code: "DUPLICATE_KEY",
        message: `key "${key}" appears twice in this map: keep one (the YAML would silently drop the other)`,
      };
    }
    case "MULTIPLE_DOCS":
      return {
        code: "YAML_SYNTAX",
        message: "a config file holds one YAML document: remove this `---` or split the file in two",
      };
  }
  // yaml's own messages are precise; keep the first line, without its position suffix.
  return {
    code: "YAML_SYNTAX",
    message: `YAML: ${message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "")}`,
  };
}

/**
 * The value of the `key: value` line (a list item's too) that holds `offset`, without a
 * trailing comment, and where it starts; undefined when the line is not one.
 */
function lineValue(text: string, offset: number): { text: string; start: number } | undefined {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const lineEnd = text.indexOf("\n", offset);
  const line = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd).replace(/\r$/, "");
  const key = /^\s*(?:-\s+)?[A-Za-z_][\w-]*:\s+/.exec(line);
  if (key === null) return undefined;
  const value = withoutComment(line.slice(key[0].length)).trimEnd();
  return value === "" ? undefined : { text: value, start: lineStart + key[0].length };
}

/** `text` up to a ` #` comment that is not inside quotes. */
function withoutComment(text: string): string {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quote === '"' && char === "\\") i++;
    else if (quote !== undefined && char === quote) quote = undefined;
    else if (quote === undefined && (char === '"' || char === "'")) quote = char;
    else if (quote === undefined && char === "#" && /\s/.test(text[i - 1] ?? " ")) return text.slice(0, i);
  }
  return text;
}

/** `"text"`, or `'text'` where that needs no escapes (`'"Q4" launch'`). */
function yamlQuoted(value: string): string {
  const double = JSON.stringify(value);
  return double.includes("\\") && !value.includes("'") && !/[\\\p{Cc}]/u.test(value) ? `'${value}'` : double;
}

/** Walks the YAML tree once, producing plain data and recording positions. */
class Converter {
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
      // yaml reads an alias of no anchor as null; `name: *star` meant as text would then be
      // "nothing", far from the real cause.
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
      // `yaml` tells keys apart by value, so `1` and `"1"` (or `true` and `"true"`) are two to
      // it; as data they are one name, and one value would silently be lost.
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

  /**
   * Where a value was written: for an alias of a scalar (`id: *io`), the anchored scalar
   * (`&io 0017`), whose text is what a message quotes and where a fix belongs.
   */
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
