/** `into.push(...items)` without the spread, whose arguments overflow the stack past ~100,000 items. */
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
