/**
 * How deep a value doohctl did not make may nest (docs/api-client.md, How much is read): the
 * walks that compare, fingerprint and print recurse, and 7,000 levels from a hostile DSP
 * overflowed the stack mid-apply. The contract nests a few levels: 64 is far above it.
 */
export const MAX_NESTING_DEPTH = 64;

/**
 * Where JSON text first nests deeper than `limit` (`[` and `{` outside strings): its offset,
 * or undefined. One pass, no recursion, before the text is parsed.
 */
export function jsonTooDeepAt(text: string, limit = MAX_NESTING_DEPTH): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash: the next character is escaped, even `"`
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return i;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return undefined;
}

/**
 * The path to the first object or array nested deeper than `limit` (the top is depth 1), or
 * undefined. Iterative and bounded by the limit, so a YAML alias cycle ends; a shared node is
 * walked again only when reached deeper, so aliases cannot multiply the work.
 */
export function valueTooDeepAt(value: unknown, limit = MAX_NESTING_DEPTH): (string | number)[] | undefined {
  // Each frame links to its parent: the path is built only for the node that is too deep.
  interface Frame {
    node: object;
    depth: number;
    key: string | number;
    parent: Frame | undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const stack: Frame[] = [{ node: value, depth: 1, key: "", parent: undefined }];
  const deepest = new Map<object, number>();
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.depth > limit) return pathOf(frame);
    if ((deepest.get(frame.node) ?? 0) >= frame.depth) continue;
    deepest.set(frame.node, frame.depth);
    const node = frame.node as Record<string, unknown>;
    const keys: (string | number)[] = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    for (let i = keys.length - 1; i >= 0; i--) {
      const child = node[keys[i]!];
      if (typeof child === "object" && child !== null) {
        stack.push({ node: child, depth: frame.depth + 1, key: keys[i]!, parent: frame });
      }
    }
  }
  return undefined;
}

function pathOf(frame: { key: string | number; parent: typeof frame | undefined }): (string | number)[] {
  const path: (string | number)[] = [];
  for (let f: typeof frame | undefined = frame; f?.parent !== undefined; f = f.parent) path.unshift(f.key);
  return path;
}
