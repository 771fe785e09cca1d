/**
 * The client tests' world: `emulatorWorld` (test/helpers/world.ts) with an account of
 * inactive campaigns, so rate windows and session expiry run on virtual time.
 */
import type { DspClientOptions } from "../../src/api/types.js";
import type { EmulatorOptions, EmulatorSeed } from "../../src/emulator/index.js";
import type { RateLimits } from "../../src/model/limits.js";
import { seededRandom } from "../../src/model/random.js";
import { seedWithCampaigns } from "../helpers/builders.js";
import { type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

export const CAMPAIGNS_PATH = "/api/dsp/v1/campaigns";

export type Harness = EmulatorWorld;

/** `emulatorWorld` with `campaigns` campaigns seeded (3 unless told), the emulator's rate limits off and a seeded jitter. */
export function harness(
  options: {
    campaigns?: number;
    rateLimits?: RateLimits | "off";
    autoAdvance?: boolean;
    emulator?: Partial<EmulatorOptions>;
    client?: Partial<DspClientOptions>;
  } = {},
): Promise<Harness> {
  return emulatorWorld({
    seed: options.emulator?.seed ?? (seedWithCampaigns(options.campaigns ?? 3) as EmulatorSeed),
    autoAdvance: options.autoAdvance ?? true,
    emulator: { rateLimits: options.rateLimits ?? "off", ...options.emulator },
    client: { random: seededRandom(7), ...options.client },
  });
}

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
