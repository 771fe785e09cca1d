/**
 * When the write window (G10: a slot held one window from each request), as other runs on this
 * machine hold it, lets each request go: what the rate limit imposes, not network time.
 */
import type { RateWindow } from "../model/limits.js";

/** For each of `writes` requests, ms from now until it may go; `busyMs`: until each held slot frees. */
export function writeSendTimes(writes: number, window: RateWindow, busyMs: readonly number[] = []): number[] {
  // Times at which held slots free, ascending; each new one (send + window) is the latest yet.
  const frees = busyMs.filter((ms) => ms > 0).sort((a, b) => a - b);
  let first = 0;
  const times: number[] = [];
  let now = 0;
  for (let i = 0; i < writes; i++) {
    while (first < frees.length && frees[first]! <= now) first++;
    if (frees.length - first >= window.limit) {
      now = frees[frees.length - window.limit]!;
      while (first < frees.length && frees[first]! <= now) first++;
    }
    times.push(now);
    frees.push(now + window.windowMs);
  }
  return times;
}

/** Milliseconds from request `fromSeq` to request `toSeq` (1-based) at the send times above. */
export function spanMs(times: readonly number[], fromSeq: number, toSeq: number): number {
  return Math.max(0, (times[toSeq - 1] ?? 0) - (times[fromSeq - 1] ?? 0));
}
