/**
 * Builders for client tests against the real emulator over HTTP (port 0, in-process),
 * sharing one VirtualClock with the client so rate windows and session expiry run on
 * virtual time.
 */
import { createDspClient } from "../../src/api/client.js";
import type { ApiEvent, DspClient, DspClientOptions } from "../../src/api/types.js";
import { type EmulatorOptions, type RunningEmulator, startEmulator } from "../../src/emulator/index.js";
import { VirtualClock } from "../../src/model/clock.js";
import type { RateLimits } from "../../src/model/limits.js";
import { seededRandom } from "../../src/model/random.js";

export const USER = { email: "ops@doohctl.test", password: "correct-horse-battery", account_id: "1" };
export const CAMPAIGNS_PATH = "/api/dsp/v1/campaigns";

const usd = (units: string) => ({ currency_code: "USD", units, nanos: 0 });

/** One advertiser, insertion order 1001 (no budget cap) and `count` inactive campaigns 5001... */
export function seedWithCampaigns(count: number) {
  return {
    users: [USER],
    advertisers: [{ id: "1", name: "Acme Drinks" }],
    insertion_orders: [
      {
        id: "1001",
        advertiser_id: "1",
        name: "Winter 2026",
        contract_number: null,
        start_time: "2026-12-01T00:00:00Z",
        end_time: "2027-03-01T00:00:00Z",
        budget_impressions: null,
        budget_money: null,
      },
    ],
    campaigns: Array.from({ length: count }, (_, i) => ({
      id: String(5001 + i),
      insertion_order_id: "1001",
      name: `Campaign ${i + 1}`,
      active: false,
      start_time: "2026-12-01T00:00:00Z",
      end_time: "2027-01-01T00:00:00Z",
      budget_impressions: 1000,
      cpm: usd("10"),
      pacing: {},
    })),
  };
}

export interface Harness {
  emulator: RunningEmulator;
  client: DspClient;
  clock: VirtualClock;
  events: ApiEvent[];
  /** Requests the emulator saw on `path` (exact) with `method`. */
  seen(method: string, path: string): number;
  close(): Promise<void>;
}

export async function harness(
  options: {
    campaigns?: number;
    rateLimits?: RateLimits | "off";
    autoAdvance?: boolean;
    emulator?: Partial<EmulatorOptions>;
    client?: Partial<DspClientOptions>;
  } = {},
): Promise<Harness> {
  const clock = new VirtualClock({ autoAdvance: options.autoAdvance ?? true });
  const emulator = await startEmulator({
    port: 0,
    clock,
    control: true,
    seed: seedWithCampaigns(options.campaigns ?? 3) as EmulatorOptions["seed"],
    rateLimits: options.rateLimits ?? "off",
    ...options.emulator,
  });
  const client = createDspClient({
    apiOrigin: emulator.origin,
    environment: "production",
    credentials: { email: USER.email, password: USER.password },
    clock,
    random: seededRandom(7),
    ...options.client,
  });
  const events: ApiEvent[] = [];
  client.on((event) => events.push(event));
  return {
    emulator,
    client,
    clock,
    events,
    seen: (method, path) =>
      emulator.requestLog().filter((e) => e.method === method && e.path === path).length,
    close: async () => {
      await client.close();
      await emulator.close();
    },
  };
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
