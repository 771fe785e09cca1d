/**
 * Canonical instants, remembered. A config's or a plan's 10,000 campaigns share a few
 * flights: parsing each of their times again (to check, compare, fingerprint) cost more than
 * the rest of those steps. Time.parse is pure in its text, so a remembered answer is never
 * stale.
 */
import { Time } from "./time.js";

const MAX_REMEMBERED = 10_000;
const canonical = new Map<string, string>();

/** Time.parse: the canonical UTC text, or the same TimeError. */
export function canonicalTime(text: string): string {
  let known = canonical.get(text);
  if (known === undefined) {
    known = Time.parse(text);
    if (canonical.size >= MAX_REMEMBERED) canonical.clear();
    canonical.set(text, known);
  }
  return known;
}

const millis = new Map<string, number>();

/** Time.toMillis, remembered the same bounded way. */
export function millisOf(text: string): number {
  let known = millis.get(text);
  if (known === undefined) {
    known = Time.toMillis(text);
    if (millis.size >= MAX_REMEMBERED) millis.clear();
    millis.set(text, known);
  }
  return known;
}

/** Time.equals: equal instants have equal canonical text. */
export function sameInstant(a: string, b: string): boolean {
  return canonicalTime(a) === canonicalTime(b);
}
