/**
 * `into.push(...items)` without the spread: a call's arguments live on the stack, and past
 * about 100,000 items (a file of 200,000 creatives, 150,000 config errors) the spread throws
 * "Maximum call stack size exceeded". Returns `into`.
 */
export function append<T>(into: T[], items: Iterable<T>): T[] {
  for (const item of items) into.push(item);
  return into;
}

/** The largest of `values`, or `empty` when there are none; `Math.max(...values)` overflows. */
export function largest(values: Iterable<number>, empty = Number.NEGATIVE_INFINITY): number {
  let out = empty;
  let first = true;
  for (const value of values) {
    out = first ? value : Math.max(out, value);
    first = false;
  }
  return out;
}
