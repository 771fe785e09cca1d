/**
 * When the write window lets each request of a plan go (G10: a sliding window of `limit`
 * requests per `windowMs`, a slot held from a request until one window later). The window
 * as it stands: empty but for the slots other runs on this machine hold (pacing across
 * runs). Window-bound: it counts what the rate limit imposes, not network or server time,
 * so 8 writes into an empty 10/60s window take about 0 s, and the 11th waits for the 1st.
 */
import type { RateWindow } from "../model/limits.js";

/**
 * @param busyMs for each slot other runs hold now, the milliseconds until it frees
 * @returns for each of `writes` requests, in order, milliseconds from now until it may go
 */
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
