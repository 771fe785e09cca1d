/**
 * The one way a message agrees a noun with its count, so that every output says `1 campaign`
 * and `2 campaigns` alike (golden tests hold the words).
 */

/** The noun for `n` of it: `plural(1, "campaign")` is `campaign`, `plural(2, "retry", "retries")` `retries`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** `1 campaign`, `2 campaigns`; `count(3, "retry", "retries")`. */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${plural(n, one, many)}`;
}
