/**
 * The tests' one vocabulary for the objects they build, one name per noun:
 * - `live*`: objects as the planner reads them from the DSP (complete wire shape);
 * - `seed*`: objects an emulator starts with (wire shape, the emulator fills the rest);
 * - `desired*`: objects as the config loader yields them, each with its place in `doohctl.yaml`.
 */

import type { EmulatorSeed } from "../../src/emulator/index.js";
import type {
  CampaignFields,
  DesiredCampaign,
  DesiredCreative,
  DesiredInsertionOrder,
  DesiredState,
  InsertionOrderFields,
  SourceRef,
} from "../../src/model/desired.js";
import {
  CAMPAIGN_FIELDS,
  type FieldKind,
  type FieldSpec,
  type WireOf,
  withFlag,
} from "../../src/model/resource-fields.js";
import type { TargetingOptionSet } from "../../src/model/targeting.js";
import type { Advertiser, Campaign, CampaignCreate, Creative, InsertionOrder } from "../../src/model/wire.js";
import type { LiveState } from "../../src/plan/types.js";
import { usd } from "./money.js";
import { USER } from "./users.js";

export const FILE = "doohctl.yaml";
export const ADVERTISER = { id: "1", name: "Acme" };

export function source(line: number, path = "insertion_orders[0]"): SourceRef {
  return { file: FILE, line, column: 5, path };
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

/**
 * A value of each kind of the client's tables (src/model/resource-fields.ts), for a member a
 * builder does not name: a member added to a table reaches every builder with no edit.
 */
const OF_KIND: { readonly [K in FieldKind]: unknown } = {
  id: "1001",
  text: "Example",
  url: "https://pixel.example.com/p",
  time: "2026-12-01T00:00:00Z",
  money: usd("12"),
  integer: 100_000,
  boolean: false,
  opaque: {},
  id_list: [],
};

/** Every member of a resource's table, in its order: the one in `values`, else its kind's. */
function members<T extends readonly FieldSpec[]>(fields: T, values: object): WireOf<T> {
  const given = values as Record<string, unknown>;
  const entries = fields.map((f) => [
    f.name,
    f.name in given ? given[f.name] : structuredClone(OF_KIND[f.kind]),
  ]);
  return Object.fromEntries(entries) as WireOf<T>;
}

/**
 * The tests' one campaign on the wire (the planner's live campaign, an emulator's seed, a
 * status sample): every member of `CAMPAIGN_FIELDS`, `values` with what differs (`progress`
 * too), the others an example of their kind: inactive, not in flight, insertion order 1001,
 * 100,000 impressions at 12 USD, empty pacing.
 */
export function campaignMembers(values: Partial<Campaign> & { id: string; name: string }): Campaign {
  return { ...members(CAMPAIGN_FIELDS, values), ...values };
}

/**
 * One item of `POST /campaigns` (G3): insertion order 1001, `name`, and the members the
 * client's table requires to create, each from `values` or an example of its kind (flight
 * Dec 1 .. Jan 1, 1,000 impressions at 10 USD unless told).
 */
export function campaignCreate(values: Partial<CampaignCreate> & { name: string }): CampaignCreate {
  const { name, ...rest } = values;
  const example = { end_time: "2027-01-01T00:00:00Z", budget_impressions: 1000, cpm: usd("10"), ...rest };
  return {
    insertion_order_id: "1001",
    name,
    ...(members(withFlag(CAMPAIGN_FIELDS, "required"), example) as object),
    ...rest,
  } as CampaignCreate;
}

export function liveCampaign(overrides: Partial<Campaign> = {}): Campaign {
  return campaignMembers({
    id: "5001",
    name: "Airports",
    active: true,
    start_time: "2026-12-15T00:00:00Z",
    end_time: "2027-02-01T00:00:00Z",
    ...overrides,
  });
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
  return campaignMembers({
    id,
    insertion_order_id: io,
    name,
    end_time: "2027-02-01T00:00:00Z",
    ...overrides,
  });
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

/**
 * A small account, complete as the emulator stores it: two advertisers, two insertion orders,
 * three campaigns, three creatives (one archived), for the test account's `USER`.
 */
export function seedAccount(overrides: Partial<EmulatorSeed> = {}): EmulatorSeed {
  return {
    users: [USER],
    advertisers: [
      { id: "1", name: "Northwind Beverages" },
      { id: "2", name: "Contoso Travel" },
    ],
    insertion_orders: [
      {
        id: "1001",
        advertiser_id: "1",
        name: "Winter push",
        contract_number: "PO-1",
        start_time: "2026-12-01T00:00:00Z",
        end_time: "2027-03-01T00:00:00Z",
        budget_impressions: 1_000_000,
        budget_money: usd("25000"),
      },
      {
        id: "1002",
        advertiser_id: "2",
        name: "Spring travel",
        contract_number: null,
        start_time: "2026-12-01T00:00:00Z",
        end_time: "2027-06-01T00:00:00Z",
        budget_impressions: null,
        budget_money: null,
      },
    ],
    campaigns: [
      seedCampaignWith({ id: "5001", active: true, name: "Airports", budget_impressions: 300_000 }),
      seedCampaignWith({ id: "5002", name: "Malls", budget_impressions: 200_000 }),
      seedCampaignWith({
        id: "5003",
        insertion_order_id: "1002",
        name: "Stations",
        budget_impressions: 50_000,
      }),
    ],
    targetings: {
      "5001": [{ venue_type_targeting_option: { venue_type_ids: ["12", "14"] } }],
    },
    creatives: [
      seedCreativeWith({ id: "9001", campaign_ids: ["5001"], insertion_order_ids: ["1001"] }),
      seedCreativeWith({ id: "9002", name: "Old spot", archived: true }),
      seedCreativeWith({ id: "9003", advertiser_id: "2", name: "Travel video", type: "VIDEO" }),
    ],
    creative_categories: [
      { id: "1", name: "Beverages" },
      { id: "2", name: "Travel" },
    ],
    networks: [
      { id: "1", name: "Metro Screens" },
      { id: "2", name: "Airport Media" },
    ],
    ...overrides,
  };
}

/** A seed campaign with every member the emulator stores; `fields` names what differs. */
export function seedCampaignWith(fields: Partial<Campaign> & { id: string }) {
  return campaignMembers({
    name: `Campaign ${fields.id}`,
    end_time: "2027-01-01T00:00:00Z",
    budget_impressions: 10_000,
    cpm: usd("12.5"),
    pacing: { strategy: "even" },
    ...fields,
  });
}

/** A seed creative with every member the emulator stores; `fields` names what differs. */
export function seedCreativeWith(
  fields: Partial<NonNullable<EmulatorSeed["creatives"]>[number]> & { id: string },
) {
  return {
    advertiser_id: "1",
    name: `Creative ${fields.id}`,
    create_time: "2026-10-01T00:00:00Z",
    campaign_ids: [],
    insertion_order_ids: [],
    category_ids: ["1"],
    thumbnail_url: `https://cdn.example.com/${fields.id}.png`,
    pixel_url: "",
    duration_ms: 10_000,
    archived: false,
    type: "IMAGE" as const,
    requires_audio: false,
    processing_status: "PROCESSED" as const,
    asset: {
      url: `https://cdn.example.com/${fields.id}.png`,
      width: 1920,
      height: 1080,
      format: "image/png",
      file_size_bytes: 1000,
    },
    audits: [],
    ...fields,
  };
}

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
    campaigns: Array.from({ length: count }, (_, i) =>
      campaignMembers({
        id: String(5001 + i),
        name: `Campaign ${i + 1}`,
        end_time: "2027-01-01T00:00:00Z",
        budget_impressions: 1000,
        cpm: usd("10"),
      }),
    ),
  };
}

/**
 * Where a desired object and its fields were written. A number puts the object on that line and
 * its fields on the lines below, so output that cites it reads the same in every test; "next"
 * gives the object and each field a line of its own, the next unused one in the file, so a
 * failure traced to a line names exactly one field.
 */
export type Placement = number | "next";

let lastLine = 1;
function nextSource(path: string): SourceRef {
  lastLine += 1;
  return source(lastLine, path);
}

export function desiredCampaign(
  name: string,
  options: {
    id?: string;
    fields?: CampaignFields;
    targetings?: TargetingOptionSet[];
    creatives?: string[];
    line?: Placement;
  } = {},
): DesiredCampaign {
  const path = `campaigns.${name}`;
  const fields = options.fields ?? {};
  const line = options.line ?? 10;
  const fieldSources: DesiredCampaign["fieldSources"] = {};
  for (const [i, key] of (Object.keys(fields) as (keyof CampaignFields)[]).entries()) {
    fieldSources[key] =
      line === "next" ? nextSource(`${path}.${key}`) : source(line + 1 + i, `${path}.${key}`);
  }
  if (line === "next") {
    if (options.targetings) fieldSources.targetings = nextSource(`${path}.targetings`);
    if (options.creatives) fieldSources.creatives = nextSource(`${path}.creatives`);
  }
  return {
    name,
    ...(options.id !== undefined ? { id: options.id } : {}),
    fields,
    ...(options.targetings !== undefined ? { targetings: options.targetings } : {}),
    ...(options.creatives !== undefined ? { creatives: [...options.creatives].sort() } : {}),
    source: line === "next" ? nextSource(path) : source(line, path),
    fieldSources,
  };
}

export function desiredIo(
  id: string,
  options: {
    fields?: InsertionOrderFields;
    campaigns?: DesiredCampaign[];
    unmanaged?: "ignore" | "deactivate";
    line?: Placement;
  } = {},
): DesiredInsertionOrder {
  const path = `insertion_orders.${id}`;
  const fields = options.fields ?? {};
  const fieldSources: DesiredInsertionOrder["fieldSources"] = {};
  if (options.line === "next") {
    for (const key of Object.keys(fields) as (keyof InsertionOrderFields)[]) {
      fieldSources[key] = nextSource(`${path}.${key}`);
    }
  }
  return {
    id,
    fields,
    unmanagedCampaigns: options.unmanaged ?? "ignore",
    campaigns: options.campaigns ?? [],
    source: options.line === "next" ? nextSource(path) : source(options.line ?? 3, path),
    fieldSources,
  };
}

export function desiredCreative(id: string, fields: DesiredCreative["fields"]): DesiredCreative {
  return { id, fields, source: source(50, `creatives.${id}`), fieldSources: {} };
}

export function desiredState(
  insertionOrders: DesiredInsertionOrder[],
  creatives: DesiredCreative[] = [],
): DesiredState {
  return { connection: {}, insertionOrders, creatives, files: [{ path: FILE, sha256: "0".repeat(64) }] };
}

export const venue = (...ids: string[]): TargetingOptionSet => ({
  venue_targeting_option: { venue_targeting_ids: ids, exclude: false },
});
export const publisher = (...ids: string[]): TargetingOptionSet => ({
  publisher_targeting_option: { publisher_ids: ids, exclude: true },
});

export const VENUES_A: TargetingOptionSet = {
  venue_targeting_option: { venue_targeting_ids: ["101", "102"] },
};
export const VENUES_B: TargetingOptionSet = { venue_targeting_option: { venue_targeting_ids: ["201"] } };
export const PUBLISHERS: TargetingOptionSet = {
  publisher_targeting_option: { publisher_ids: ["77"], exclude: true },
};
