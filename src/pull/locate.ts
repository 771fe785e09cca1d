/**
 * Where a declared value is written (a SourceRef's path, `insertion_orders[0].campaigns[2].cpm`),
 * following aliases and `<<` merge keys as the loader does (src/config/yaml/aliases.ts): a value
 * reached through one is written at the anchor, which other objects may read (docs/pull.md).
 */
import { type Document, isAlias, isMap, isScalar, isSeq, type Node, type Pair, type YAMLMap } from "yaml";

/** The last alias or merge key the path went through: where an own value would go. */
export type Indirection =
  | { kind: "alias"; alias: Node; rest: (string | number)[] }
  | { kind: "merge"; map: YAMLMap; mergePair: Pair; key: string; rest: (string | number)[] };

export interface Located {
  /** The node the value is written as. */
  node: Node;
  /** Present when the value is not written at the object's own place. */
  via?: Indirection;
}

/** `a[0].b.c` -> ["a", 0, "b", "c"] (keys of the config are plain names). */
export function pathSegments(path: string): (string | number)[] {
  const segments: (string | number)[] = [];
  for (const part of path.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
    segments.push(part.startsWith("[") ? Number(part.slice(1, -1)) : part);
  }
  return segments;
}

function deref(doc: Document, node: unknown): Node | undefined {
  let current = node;
  for (let hops = 0; isAlias(current) && hops < 100; hops++) current = current.resolve(doc);
  return current as Node | undefined;
}

/** A map key as written; the loader's documents (`merge: true`) hold `<<` as a symbol. */
export function keyText(key: unknown): string | undefined {
  if (!isScalar(key)) return undefined;
  return typeof key.value === "symbol" ? (key.value.description ?? "<<") : String(key.value);
}

/** The pair of `key` in a map, own keys first, then its merge keys in order (YAML 1.1 merge). */
function findPair(
  doc: Document,
  map: YAMLMap,
): (key: string) => { pair: Pair; merged?: { mergePair: Pair } } | undefined {
  return (key) => {
    for (const pair of map.items) if (keyText(pair.key) === key) return { pair };
    for (const pair of map.items) {
      if (keyText(pair.key) !== "<<") continue;
      const sources = isSeq(pair.value) ? pair.value.items : [pair.value];
      for (const source of sources) {
        const target = deref(doc, source);
        if (!isMap(target)) continue;
        const found = findPair(doc, target)(key);
        if (found) return { pair: found.pair, merged: { mergePair: pair } };
      }
    }
    return undefined;
  };
}

/** Where `path` is written in `doc`, or undefined when it is not (the file changed). */
export function locate(doc: Document, path: readonly (string | number)[]): Located | undefined {
  let node: unknown = doc.contents;
  let via: Indirection | undefined;
  for (let i = 0; i < path.length; i++) {
    if (isAlias(node)) {
      via = { kind: "alias", alias: node, rest: path.slice(i) };
      node = deref(doc, node);
    }
    const segment = path[i];
    if (segment === undefined) return undefined;
    if (typeof segment === "number") {
      if (!isSeq(node)) return undefined;
      node = node.items[segment];
    } else {
      if (!isMap(node)) return undefined;
      const found = findPair(doc, node)(segment);
      if (!found) return undefined;
      if (found.merged) {
        via = {
          kind: "merge",
          map: node,
          mergePair: found.merged.mergePair,
          key: segment,
          rest: path.slice(i + 1),
        };
      }
      node = found.pair.value;
    }
  }
  if (isAlias(node)) {
    via = { kind: "alias", alias: node, rest: [] };
    node = deref(doc, node);
  }
  if (node === undefined || node === null) return undefined;
  return via ? { node: node as Node, via } : { node: node as Node };
}
