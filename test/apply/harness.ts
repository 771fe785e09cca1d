/**
 * The apply tests' world: `emulatorWorld` with the apply user and advertiser seeded, the
 * session cache off and the retry jitter fixed. Desired states are built directly
 * (test/helpers/builders.ts; the config loader has its own tests).
 */
import type { EmulatorSeed } from "../../src/emulator/index.js";
import type { RateLimits } from "../../src/model/limits.js";
import { ADVERTISER } from "../helpers/builders.js";
import { USER } from "../helpers/users.js";
import { type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

export type World = EmulatorWorld;

export function startWorld(
  seed: EmulatorSeed,
  options: { faults?: string; faultSeed?: number; rateLimits?: RateLimits } = {},
): Promise<World> {
  return emulatorWorld({
    seed: { users: [USER], advertisers: [ADVERTISER], ...seed },
    ...(options.faults ? { emulator: { faults: options.faults, faultSeed: options.faultSeed ?? 7 } } : {}),
    client: {
      sessionCache: false,
      random: () => 0.5,
      ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
    },
  });
}
