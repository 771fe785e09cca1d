/** Small builders for planner tests: live objects in wire shape, desired objects as config yields them. */
import type {
  CampaignFields,
  DesiredCampaign,
  DesiredCreative,
  DesiredInsertionOrder,
  DesiredState,
  InsertionOrderFields,
  SourceRef,
} from "../../src/model/desired.js";
import { PUBLISHED_RATE_LIMITS } from "../../src/model/limits.js";
import { Money } from "../../src/model/money.js";
import type { TargetingOptionSet } from "../../src/model/targeting.js";
import type { Advertiser, Campaign, Creative, InsertionOrder } from "../../src/model/wire.js";
import { createPlan } from "../../src/plan/planner.js";
import type { LiveState, Plan, PlanOptions } from "../../src/plan/types.js";

export const usd = (text: string) => Money.parse(`${text} USD`);

export function src(path: string, line = 1): SourceRef {
  return { file: "doohctl.yaml", line, column: 5, path };
}

export function liveIo(overrides: Partial<InsertionOrder> = {}): InsertionOrder {
  return {
    id: "1001",
    advertiser_id: "1",
    name: "Winter",
    contract_number: "PO-1",
    start_time: "2026-12-01T00:00:00Z",
    end_time: "2027-03-01T00:00:00Z",
    budget_impressions: 1_000_000,
    budget_money: usd("25000"),
    ...overrides,
  };
}

export function liveCampaign(overrides: Partial<Campaign> = {}): Campaign {
  return {
    id: "5001",
    insertion_order_id: "1001",
    name: "Airports",
    active: true,
    in_flight: false,
    start_time: "2026-12-15T00:00:00Z",
    end_time: "2027-02-01T00:00:00Z",
    budget_impressions: 100_000,
    cpm: usd("12"),
    pacing: {},
    ...overrides,
  };
}

export function liveCreative(overrides: Partial<Creative> = {}): Creative {
  return {
    id: "9001",
    campaign_ids: [],
    insertion_order_ids: [],
    category_ids: ["3"],
    advertiser_id: "1",
    create_time: "2026-10-01T00:00:00Z",
    name: "Snow",
    thumbnail_url: "https://cdn.example.com/t.png",
    pixel_url: "https://pixel.example.com/p",
    duration_ms: 10_000,
    archived: false,
    type: "IMAGE",
    requires_audio: false,
    processing_status: "PROCESSED",
    asset: null,
    audits: [],
    ...overrides,
  };
}

export function liveState(parts: Partial<LiveState> = {}): LiveState {
  return {
    insertionOrders: parts.insertionOrders ?? [liveIo()],
    campaigns: parts.campaigns ?? [],
    targetings: parts.targetings ?? {},
    creatives: parts.creatives ?? [],
    advertisers: parts.advertisers ?? ([{ id: "1", name: "Northwind" }] as Advertiser[]),
    ...(parts.creativeCategories !== undefined ? { creativeCategories: parts.creativeCategories } : {}),
    readRequests: parts.readRequests ?? 3,
  };
}

export function campaign(
  name: string,
  options: {
    id?: string;
    fields?: CampaignFields;
    targetings?: TargetingOptionSet[];
    creatives?: string[];
    line?: number;
  } = {},
): DesiredCampaign {
  const line = options.line ?? 10;
  const fieldSources: DesiredCampaign["fieldSources"] = {};
  for (const [i, key] of Object.keys(options.fields ?? {}).entries()) {
    fieldSources[key as keyof CampaignFields] = src(`campaigns.${name}.${key}`, line + 1 + i);
  }
  return {
    name,
    ...(options.id !== undefined ? { id: options.id } : {}),
    fields: options.fields ?? {},
    ...(options.targetings !== undefined ? { targetings: options.targetings } : {}),
    ...(options.creatives !== undefined ? { creatives: [...options.creatives].sort() } : {}),
    source: src(`campaigns.${name}`, line),
    fieldSources,
  };
}

export function io(
  id: string,
  options: {
    fields?: InsertionOrderFields;
    campaigns?: DesiredCampaign[];
    unmanaged?: "ignore" | "deactivate";
  } = {},
): DesiredInsertionOrder {
  return {
    id,
    fields: options.fields ?? {},
    unmanagedCampaigns: options.unmanaged ?? "ignore",
    campaigns: options.campaigns ?? [],
    source: src(`insertion_orders.${id}`, 3),
    fieldSources: {},
  };
}

export function creative(id: string, fields: DesiredCreative["fields"]): DesiredCreative {
  return { id, fields, source: src(`creatives.${id}`, 50), fieldSources: {} };
}

export function desired(ios: DesiredInsertionOrder[], creatives: DesiredCreative[] = []): DesiredState {
  return {
    connection: {},
    insertionOrders: ios,
    creatives,
    files: [{ path: "doohctl.yaml", sha256: "0".repeat(64) }],
  };
}

export const OPTIONS: PlanOptions = {
  now: "2026-11-01T00:00:00Z",
  toolVersion: "0.1.0",
  connection: { api_origin: "http://127.0.0.1:4010", environment: "production" },
  rateLimits: PUBLISHED_RATE_LIMITS,
};

export function plan(d: DesiredState, live: LiveState, options: Partial<PlanOptions> = {}): Plan {
  return createPlan(d, live, { ...OPTIONS, ...options });
}

export const venue = (...ids: string[]): TargetingOptionSet => ({
  venue_targeting_option: { venue_targeting_ids: ids, exclude: false },
});
export const publisher = (...ids: string[]): TargetingOptionSet => ({
  publisher_targeting_option: { publisher_ids: ids, exclude: true },
});

/** `PATCH /campaigns` bodies of a plan, per phase: compact to assert on. */
export function bodies(p: Plan, phase: number): unknown[] {
  return p.requests.filter((r) => r.phase === phase).map((r) => r.body);
}
