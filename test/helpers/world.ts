/**
 * The emulator world of tests that drive the real client: the emulator on port 0 and a client
 * logged in as its first seeded user, sharing one VirtualClock (auto-advancing unless told
 * otherwise) so a run of many rate-limited minutes takes milliseconds. `close()` ends both.
 * The one builder of such worlds: a folder's tests say what they need different in its
 * options (a seed, the emulator's rate limits off, a fault plan), not in a wrapper of their own.
 */
import { createDspClient } from "../../src/api/client.js";
import type { ApiEvent, Credentials, DspClient, DspClientOptions } from "../../src/api/types.js";
import {
  type EmulatorOptions,
  type EmulatorSeed,
  type RunningEmulator,
  startEmulator,
} from "../../src/emulator/index.js";
import { type Clock, VirtualClock } from "../../src/model/clock.js";
import type { DesiredState } from "../../src/model/desired.js";
import { PUBLISHED_RATE_LIMITS } from "../../src/model/limits.js";
import { createPlan } from "../../src/plan/planner.js";
import { readLiveState } from "../../src/plan/read.js";
import type { Plan } from "../../src/plan/types.js";
import { ADVERTISER } from "./builders.js";
import { interceptingProxy, type OnRequest } from "./proxy.js";
import { USER } from "./users.js";

/** Every write request the emulator received on the DSP API, answered or not, in order. */
export function dspWrites(emulator: RunningEmulator) {
  return emulator.requestLog().filter((e) => e.method !== "GET" && e.path.startsWith("/api/dsp/"));
}

export interface EmulatorWorld {
  clock: VirtualClock;
  emulator: RunningEmulator;
  client: DspClient;
  /** Every event the client emitted, in order. */
  events: ApiEvent[];
  /** Reads the live state through the client and plans `desired` at the clock's time. */
  plan(desired: DesiredState): Promise<Plan>;
  /** Writes the emulator answered with success, in order. */
  writes(): { method: string; path: string; status: number }[];
  /** Requests the emulator saw on `path` (exact) with `method`. */
  seen(method: string, path: string): number;
  /**
   * The same emulator and clock, reached by a new client through a forwarding proxy that
   * `onRequest` drives (test/helpers/proxy.ts); its `close()` ends that client, the proxy and
   * the emulator, not this world's client.
   */
  behind(onRequest: OnRequest, client?: Partial<DspClientOptions>): Promise<EmulatorWorld>;
  close(): Promise<void>;
}

export interface EmulatorWorldOptions {
  /**
   * The emulator's seed; without `users` the test account's user logs in (USER,
   * test/helpers/users.ts), without `advertisers` it has one (ADVERTISER, builders.ts).
   */
  seed: EmulatorSeed;
  /** @default true */
  autoAdvance?: boolean;
  /**
   * The world's clock, when a test needs one of its own (a start time, advanced by hand);
   * `autoAdvance` is then the clock's own.
   */
  clock?: VirtualClock;
  /** Added to the emulator's options (port 0, the clock, the control path and the seed). */
  emulator?: Partial<EmulatorOptions>;
  /**
   * Added to the client's options (the emulator's origin, production, the first user, and a
   * fixed backoff jitter of 0.5, so every wait is the same on each run and checkable by hand).
   */
  client?: Partial<DspClientOptions>;
}

export async function emulatorWorld(options: EmulatorWorldOptions): Promise<EmulatorWorld> {
  const seed: EmulatorSeed = { users: [USER], advertisers: [ADVERTISER], ...options.seed };
  const user = seed.users?.[0];
  if (!user) throw new Error("emulatorWorld: the seed has no user to log in as");
  const clock = options.clock ?? new VirtualClock({ autoAdvance: options.autoAdvance ?? true });
  const emulator = await startEmulator({
    port: 0,
    clock,
    control: true,
    seed,
    ...options.emulator,
  });
  const clientOptions: DspClientOptions = {
    apiOrigin: emulator.origin,
    environment: "production",
    credentials: { email: user.email, password: user.password },
    clock,
    random: () => 0.5,
    ...options.client,
  };
  return worldOf(emulator, clock, clientOptions);
}

/** `proxy`, when given, is the one the client reaches the emulator through; close() ends it. */
function worldOf(
  emulator: RunningEmulator,
  clock: VirtualClock,
  clientOptions: DspClientOptions,
  proxy?: { close(): Promise<void> },
): EmulatorWorld {
  const client = createDspClient(clientOptions);
  const events: ApiEvent[] = [];
  client.on((event) => events.push(event));
  return {
    clock,
    emulator,
    client,
    events,
    async plan(desired) {
      const live = await readLiveState(client, desired);
      return createPlan(desired, live, {
        now: new Date(clock.now()).toISOString(),
        toolVersion: "0.0.0-test",
        connection: { api_origin: clientOptions.apiOrigin, environment: "production" },
        rateLimits: PUBLISHED_RATE_LIMITS,
      });
    },
    writes: () =>
      dspWrites(emulator)
        .filter((e) => e.status >= 200 && e.status < 300)
        .map((e) => ({ method: e.method, path: e.path, status: e.status })),
    seen: (method, path) =>
      emulator.requestLog().filter((e) => e.method === method && e.path === path).length,
    async behind(onRequest, options = {}) {
      const proxy = await interceptingProxy(emulator.origin, { onRequest });
      return worldOf(emulator, clock, { ...clientOptions, apiOrigin: proxy.origin, ...options }, proxy);
    },
    async close() {
      await client.close();
      await proxy?.close();
      await emulator.close();
    },
  };
}

/**
 * Another person's client on the emulator at `origin`: a session of its own, the session cache
 * off, on `clock` when given (a world's clock, so its waits are virtual too).
 */
export function colleagueClient(origin: string, credentials: Credentials, clock?: Clock): DspClient {
  return createDspClient({
    apiOrigin: origin,
    environment: "production",
    credentials,
    sessionCache: false,
    ...(clock ? { clock } : {}),
  });
}
