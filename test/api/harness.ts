/**
 * What the client tests share beside their world (`emulatorWorld`, test/helpers/world.ts,
 * with `seedWithCampaigns(n)` and the emulator's rate limits off unless a test is about them).
 */

export const CAMPAIGNS_PATH = "/api/dsp/v1/campaigns";

/** Largest number of `times` inside any window of `windowMs` (G10: (t - window, t]). */
export function maxInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let max = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[start]! <= sorted[end]! - windowMs) start++;
    max = Math.max(max, end - start + 1);
  }
  return max;
}
