/**
 * The one way a message writes a count: grouped as en-US writes it, the noun agreeing with it,
 * so that every output says `1 campaign`, `2 campaigns` and `1,200 campaigns` alike (golden
 * tests hold the words).
 */

/**
 * Made once, on first need: `toLocaleString("en-US")` builds a formatter for every number, and
 * a large plan shows tens of thousands; building it at load costs a command that only validates
 * about 15 ms of its start-up (docs/performance.md).
 */
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
