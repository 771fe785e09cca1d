/**
 * The apply tests' world: the real emulator on port 0 and the real client, sharing one
 * auto-advancing VirtualClock so a run of many rate-limited minutes takes milliseconds.
 * Desired states are built directly (the config loader has its own tests); every declared
 * field gets a distinct source line so failure reports can be traced.
 */
import { createDspClient } from "../../src/api/client.js";
import type { DspClient } from "../../src/api/types.js";
import { type EmulatorSeed, type RunningEmulator, startEmulator } from "../../src/emulator/index.js";
import { VirtualClock } from "../../src/model/clock.js";
import type {
  CampaignFields,
  DesiredCampaign,
  DesiredCreative,
  DesiredInsertionOrder,
  DesiredState,
  InsertionOrderFields,
  SourceRef,
} from "../../src/model/desired.js";
import { PUBLISHED_RATE_LIMITS, type RateLimits } from "../../src/model/limits.js";
import { Money } from "../../src/model/money.js";
import type { TargetingOptionSet } from "../../src/model/targeting.js";
import type { Campaign, InsertionOrder } from "../../src/model/wire.js";
import { createPlan } from "../../src/plan/planner.js";
import { readLiveState } from "../../src/plan/read.js";
import type { Plan } from "../../src/plan/types.js";

export const USER = { email: "apply@doohctl.test", password: "apply-password-secret", account_id: "1" };
export const ADVERTISER = { id: "1", name: "Acme" };
export const FILE = "doohctl.yaml";

export function usd(text: string) {
  return Money.parse(`${text} USD`);
}

export function seedIo(id: string, overrides: Partial<InsertionOrder> = {}): InsertionOrder {
  return {
    id,
    advertiser_id: ADVERTISER.id,
    name: `IO ${id}`,
    contract_number: null,
    start_time: "2026-12-01T00:00:00Z",
    end_time: "2027-03-01T00:00:00Z",
    budget_impressions: 1_000_000,
    budget_money: usd("50000"),
    ...overrides,
  };
}

export function seedCampaign(id: string, io: string, name: string, overrides: Partial<Campaign> = {}) {
  return {
    id,
    insertion_order_id: io,
    name,
    active: false,
    start_time: "2026-12-01T00:00:00Z",
    end_time: "2027-02-01T00:00:00Z",
    budget_impressions: 100_000,
    cpm: usd("12"),
    ...overrides,
  };
}

export function seedCreative(id: string, campaignIds: string[] = [], ioIds: string[] = []) {
  return {
    id,
    advertiser_id: ADVERTISER.id,
    name: `Creative ${id}`,
    create_time: "2026-10-01T00:00:00Z",
    campaign_ids: campaignIds,
    insertion_order_ids: ioIds,
    processing_status: "PROCESSED" as const,
    type: "IMAGE" as const,
  };
}

export const VENUES_A: TargetingOptionSet = {
  venue_targeting_option: { venue_targeting_ids: ["101", "102"] },
};
export const VENUES_B: TargetingOptionSet = { venue_targeting_option: { venue_targeting_ids: ["201"] } };
export const PUBLISHERS: TargetingOptionSet = {
  publisher_targeting_option: { publisher_ids: ["77"], exclude: true },
};

let nextLine = 1;
function at(path: string): SourceRef {
  nextLine += 1;
  return { file: FILE, line: nextLine, column: 5, path };
}

export function desiredCampaign(
  name: string,
  fields: CampaignFields,
  extra: { id?: string; targetings?: TargetingOptionSet[]; creatives?: string[] } = {},
): DesiredCampaign {
  const path = `campaigns.${name}`;
  const fieldSources: DesiredCampaign["fieldSources"] = {};
  for (const key of Object.keys(fields) as (keyof CampaignFields)[]) fieldSources[key] = at(`${path}.${key}`);
  if (extra.targetings) fieldSources.targetings = at(`${path}.targetings`);
  if (extra.creatives) fieldSources.creatives = at(`${path}.creatives`);
  return {
    name,
    fields,
    source: at(path),
    fieldSources,
    ...(extra.id !== undefined ? { id: extra.id } : {}),
    ...(extra.targetings ? { targetings: extra.targetings } : {}),
    ...(extra.creatives ? { creatives: [...extra.creatives].sort() } : {}),
  };
}

export function desiredIo(
  id: string,
  campaigns: DesiredCampaign[],
  fields: InsertionOrderFields = {},
  unmanagedCampaigns: "ignore" | "deactivate" = "ignore",
): DesiredInsertionOrder {
  const fieldSources: DesiredInsertionOrder["fieldSources"] = {};
  for (const key of Object.keys(fields) as (keyof InsertionOrderFields)[]) {
    fieldSources[key] = at(`insertion_orders.${id}.${key}`);
  }
  return { id, fields, unmanagedCampaigns, campaigns, source: at(`insertion_orders.${id}`), fieldSources };
}

export function desiredState(
  insertionOrders: DesiredInsertionOrder[],
  creatives: DesiredCreative[] = [],
): DesiredState {
  return { connection: {}, insertionOrders, creatives, files: [{ path: FILE, sha256: "0".repeat(64) }] };
}

export interface World {
  clock: VirtualClock;
  emulator: RunningEmulator;
  client: DspClient;
  plan(desired: DesiredState): Promise<Plan>;
  /** Writes the emulator answered with success, in order. */
  writes(): { method: string; path: string; status: number }[];
  close(): Promise<void>;
}

export async function startWorld(
  seed: EmulatorSeed,
  options: {
    faults?: string;
    faultSeed?: number;
    apiOrigin?: (emulatorOrigin: string) => string;
    rateLimits?: RateLimits;
  } = {},
): Promise<World> {
  const clock = new VirtualClock({ autoAdvance: true });
  const emulator = await startEmulator({
    port: 0,
    clock,
    control: true,
    seed: { users: [USER], advertisers: [ADVERTISER], ...seed },
    ...(options.faults ? { faults: options.faults, faultSeed: options.faultSeed ?? 7 } : {}),
  });
  const apiOrigin = options.apiOrigin?.(emulator.origin) ?? emulator.origin;
  const client = createDspClient({
    apiOrigin,
    environment: "production",
    credentials: { email: USER.email, password: USER.password },
    clock,
    sessionCache: false,
    random: () => 0.5,
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
  });
  return {
    clock,
    emulator,
    client,
    async plan(desired) {
      const live = await readLiveState(client, desired);
      return createPlan(desired, live, {
        now: new Date(clock.now()).toISOString(),
        toolVersion: "0.0.0-test",
        connection: { api_origin: apiOrigin, environment: "production" },
        rateLimits: PUBLISHED_RATE_LIMITS,
      });
    },
    writes() {
      return emulator
        .requestLog()
        .filter(
          (e) => e.method !== "GET" && e.path.startsWith("/api/dsp/") && e.status >= 200 && e.status < 300,
        )
        .map((e) => ({ method: e.method, path: e.path, status: e.status }));
    },
    async close() {
      await client.close();
      await emulator.close();
    },
  };
}

/** The same emulator, reached through another origin (a proxy). */
export async function startWorldBehind(
  w: World,
  origin: string,
  options: { timeouts?: { connectMs?: number; requestMs?: number } } = {},
): Promise<World> {
  const client = createDspClient({
    apiOrigin: origin,
    environment: "production",
    credentials: { email: USER.email, password: USER.password },
    clock: w.clock,
    sessionCache: false,
    random: () => 0.5,
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
  });
  return {
    ...w,
    client,
    async plan(desired) {
      const live = await readLiveState(client, desired);
      return createPlan(desired, live, {
        now: new Date(w.clock.now()).toISOString(),
        toolVersion: "0.0.0-test",
        connection: { api_origin: origin, environment: "production" },
        rateLimits: PUBLISHED_RATE_LIMITS,
      });
    },
    async close() {
      await client.close();
      await w.emulator.close();
    },
  };
}
