/** The one way a message writes a count: `1 campaign`, `1,200 campaigns` (golden tests hold the words). */

/** Built once, on first need: at load it cost a command that only validates ~15 ms (docs/performance.md). */
let enUs: Intl.NumberFormat | undefined;

/** `1,200,000`: a number grouped as en-US writes it. */
export function grouped(n: number | bigint): string {
  // Below 1,000 a whole number has no separator to write: most counts never need the formatter.
  if ((typeof n === "bigint" || Number.isInteger(n)) && n < 1000 && n > -1000) return String(n);
  enUs ??= new Intl.NumberFormat("en-US");
  return enUs.format(n);
}

/** The noun for `n` of it: `plural(1, "campaign")` is `campaign`, `plural(2, "retry", "retries")` `retries`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** `1 campaign`, `1,200 campaigns`; `count(3, "retry", "retries")`. */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${grouped(n)} ${plural(n, one, many)}`;
}
