/**
 * Resolves every alias of a document in one pass, and finds those that loop (`x: &a [*a]`, or
 * `<<: *a` inside the mapping anchored `&a`), which converting would never end: reported on the
 * YAML tree, where each is written. An alias names only an earlier anchor, so a loop is an
 * alias inside the very collection it names: checking its enclosing collections finds all.
 */
import { type Alias, type Document, isAlias, isMap, isNode, isPair, isScalar, isSeq, type Node } from "yaml";
import type { ConfigIssue } from "../issues.js";
import { pathText } from "../path-text.js";
import type { SourceIndex } from "../source-index.js";

export interface ResolvedAliases {
  /** What each alias names. */
  targets: Map<Alias, Node>;
  /** One issue per alias that names a collection enclosing it. */
  loops: ConfigIssue[];
}

export function resolveAliases(doc: Document, index: SourceIndex): ResolvedAliases {
  const issues: ConfigIssue[] = [];
  const targets = new Map<Alias, Node>();
  const enclosing = new Set<Node>();
  // Anchors so far, in document order (an alias names the latest): Alias.resolve walks the whole
  // document on every call, minutes for a 10,000-campaign config merging a shared flight.
  const anchors = new Map<string, Node>();
  // One path, pushed and popped as the walk goes: this pass runs over every config, large ones too.
  const path: (string | number)[] = [];

  const walk = (node: unknown, inMerge: boolean): void => {
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      if (target !== undefined) targets.set(node, target);
      if (target !== undefined && enclosing.has(target)) {
        issues.push({
          file: index.file,
          ...index.position(node.range?.[0] ?? 0),
          path: pathText(path),
          message: loopMessage(node.source, isMap(target) ? "mapping" : "list", inMerge),
          code: "YAML_SYNTAX",
        });
      }
      return;
    }
    if (!isNode(node)) return;
    if (node.anchor !== undefined) anchors.set(node.anchor, node);
    if (isMap(node)) {
      enclosing.add(node);
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = pair.key;
        const isMerge = isScalar(key) && typeof key.value === "symbol";
        // A key may carry an anchor; a non-scalar key is reported by the converter.
        walk(key, false);
        path.push(isScalar(key) ? (isMerge ? "<<" : String(key.value)) : "?");
        walk(pair.value, isMerge);
        path.pop();
      }
      enclosing.delete(node);
    } else if (isSeq(node)) {
      enclosing.add(node);
      // `<<: [*a, *b]` merges each item: they stay merge sources.
      node.items.forEach((item, i) => {
        path.push(i);
        walk(item, inMerge);
        path.pop();
      });
      enclosing.delete(node);
    }
  };
  walk(doc.contents, false);
  return { targets, loops: issues };
}

function loopMessage(anchor: string, kind: "mapping" | "list", inMerge: boolean): string {
  if (inMerge && kind === "mapping") {
    return `this merge key refers to its own enclosing mapping (&${anchor}): a mapping cannot merge itself; move the shared keys into a separate anchored block and merge that`;
  }
  return `this alias refers to its own enclosing ${kind} (&${anchor}): the data would contain itself without end; anchor a separate block and refer to that instead`;
}
