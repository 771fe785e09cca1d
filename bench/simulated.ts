/**
 * The simulated DSP the window-bound benchmarks run against: the emulator and a client on
 * one VirtualClock (autoAdvance) at the published windows, logged in (a GET, outside the write
 * window), so an hour of rate-limited traffic takes seconds and the figures are the ones a
 * real run at the published limits would see.
 */
import { createDspClient } from "../src/api/client.js";
import type { DspClient } from "../src/api/types.js";
import { type EmulatorSeed, type RunningEmulator, startEmulator } from "../src/emulator/index.js";
import { VirtualClock } from "../src/model/clock.js";
import { PUBLISHED_RATE_LIMITS } from "../src/model/limits.js";
import { BENCH_USER } from "./emulator.js";

export interface SimulatedDsp {
  clock: VirtualClock;
  emulator: RunningEmulator;
  client: DspClient;
}

export async function withSimulatedDsp<T>(
  seed: EmulatorSeed,
  run: (dsp: SimulatedDsp) => Promise<T>,
): Promise<T> {
  const clock = new VirtualClock({ autoAdvance: true });
  const emulator = await startEmulator({ seed, clock });
  const client = createDspClient({
    apiOrigin: emulator.origin,
    environment: "production",
    credentials: BENCH_USER,
    rateLimits: PUBLISHED_RATE_LIMITS,
    clock,
  });
  try {
    await client.getInsertionOrders(["1001"]); // logs in; not part of what is measured
    return await run({ clock, emulator, client });
  } finally {
    await client.close();
    await emulator.close();
  }
}
