/**
 * Emulator seeds: the initial state in the API's shapes, with users, checked against the schema and
 * the rules the API enforces (references, associations, UTC times, G8): never a state the service
 * could not be in. Every problem names its path.
 */
import { readFile } from "node:fs/promises";
import type { ErrorObject } from "ajv/dist/2020.js";
import { daysToPlace, isCalendarDate, placeValue } from "../model/calendar.js";
import { type Dialect, parseDialect } from "../model/dialect.js";
import { compareIds, sortedIds, Targeting, type TargetingOptionSet } from "../model/targeting.js";
import { Time } from "../model/time.js";
import type {
  Advertiser,
  Campaign,
  CampaignProgress,
  Creative,
  CreativeAuditEntry,
  CreativeCategory,
  InsertionOrder,
  Network,
} from "../model/wire.js";
import { checkedDialect } from "./dialect.js";
import { Issues, SeedError } from "./errors.js";
import { readTime } from "./fields.js";
import { CAMPAIGN_MEMBERS, checkSeedMembers, INSERTION_ORDER_MEMBERS, seeded } from "./members.js";
import { readTargetingList } from "./routes/targetings.js";
import { checkInsertionOrder } from "./rules.js";
// SEED_SCHEMA (seed-schema.ts), compiled when doohctl is built (scripts/gen-validators.ts).
import { seed as validateSchema } from "./seed-schema.generated.js";
import {
  type AuditRecord,
  type CampaignRecord,
  type CreativeRecord,
  Store,
  sortById,
  type UserRecord,
} from "./store.js";

export type SeedUser = UserRecord;

/** A campaign as the API shows it; derived members may be present and are ignored. */
export type SeedCampaign = Omit<Campaign, "in_flight" | "pacing" | "progress"> & {
  in_flight?: boolean;
  pacing?: Record<string, unknown>;
  progress?: CampaignProgress;
};

export type SeedAudit = CreativeAuditEntry & Partial<Omit<AuditRecord, keyof CreativeAuditEntry>>;

/** A creative in the DSP view; members with a documented default may be left out. */
export type SeedCreative = Pick<Creative, "id" | "advertiser_id" | "name" | "create_time"> &
  Partial<Omit<Creative, "id" | "advertiser_id" | "name" | "create_time" | "audits">> & {
    audits?: SeedAudit[];
    /** The account (seat) the creative belongs to; default: the first user's account. */
    seat_id?: string;
  };

export type SeedInsertionOrder = Omit<
  InsertionOrder,
  "contract_number" | "budget_impressions" | "budget_money"
> &
  Partial<Pick<InsertionOrder, "contract_number" | "budget_impressions" | "budget_money">>;

export interface EmulatorSeed {
  /** The day (`YYYY-MM-DD`, UTC) the dates are written for: moved to the emulator's (`placeSeed`). */
  today?: string;
  users?: SeedUser[];
  advertisers?: Advertiser[];
  insertion_orders?: SeedInsertionOrder[];
  campaigns?: SeedCampaign[];
  targetings?: Record<string, TargetingOptionSet[]>;
  creatives?: SeedCreative[];
  creative_categories?: CreativeCategory[];
  networks?: Network[];
  /** The dialect to serve, as a config's `connection.dialect`; `--dialect` wins over it. */
  dialect?: unknown;
}

/** `/campaigns/3/cpm` -> `campaigns[3].cpm`. */
function toField(pointer: string): string {
  return pointer
    .split("/")
    .slice(1)
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce(
      (out, part) => (/^[0-9]+$/.test(part) ? `${out}[${part}]` : out === "" ? part : `${out}.${part}`),
      "",
    );
}

function schemaIssues(errors: readonly ErrorObject[]): Issues {
  const issues = new Issues();
  for (const error of errors) {
    // oneOf reports each branch; the branch errors say more.
    if (error.keyword === "oneOf") continue;
    const field = toField(error.instancePath);
    const params = error.params as { additionalProperty?: string; missingProperty?: string };
    const member = params.additionalProperty ?? params.missingProperty;
    if (member === undefined) issues.add(field, error.message ?? "is invalid");
    else {
      const problem = error.keyword === "required" ? "is required" : "is not a known property";
      issues.add(field === "" ? member : `${field}.${member}`, problem);
    }
  }
  return issues;
}

function checkUnique(issues: Issues, member: string, items: readonly { id: string }[]): void {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (seen.has(item.id)) issues.add(`${member}[${index}].id`, `id ${item.id} appears more than once`);
    seen.add(item.id);
  });
}

/** Rules beyond the schema: references, UTC times, money, targetings, G6 associations, G8. */
function checkRules(seed: EmulatorSeed, issues: Issues): void {
  if (seed.today !== undefined && !isCalendarDate(seed.today))
    issues.add("today", `"${seed.today}" is not a calendar date: write the day as YYYY-MM-DD`);
  if (seed.dialect !== undefined) {
    const read = parseDialect(seed.dialect);
    if ("problems" in read) {
      for (const p of read.problems) issues.add(p.key === "" ? "dialect" : `dialect.${p.key}`, p.message);
    }
  }
  const advertisers = new Set((seed.advertisers ?? []).map((a) => a.id));
  const categories = new Set((seed.creative_categories ?? []).map((c) => c.id));
  const networks = new Set((seed.networks ?? []).map((n) => n.id));
  const orders = new Map((seed.insertion_orders ?? []).map((io) => [io.id, io]));
  const campaigns = new Map((seed.campaigns ?? []).map((c) => [c.id, c]));
  for (const [member, items] of [
    ["advertisers", seed.advertisers],
    ["creative_categories", seed.creative_categories],
    ["networks", seed.networks],
    ["insertion_orders", seed.insertion_orders],
    ["campaigns", seed.campaigns],
    ["creatives", seed.creatives],
  ] as const) {
    checkUnique(issues, member, items ?? []);
  }
  const emails = new Set<string>();
  (seed.users ?? []).forEach((user, index) => {
    if (emails.has(user.email.toLowerCase())) issues.add(`users[${index}].email`, "appears more than once");
    emails.add(user.email.toLowerCase());
    if (user.network_id !== undefined && !networks.has(user.network_id)) {
      issues.add(`users[${index}].network_id`, `network ${user.network_id} does not exist`);
    }
  });
  (seed.insertion_orders ?? []).forEach((io, index) => {
    const at = `insertion_orders[${index}]`;
    if (!advertisers.has(io.advertiser_id))
      issues.add(`${at}.advertiser_id`, `advertiser ${io.advertiser_id} does not exist`);
    checkSeedMembers(INSERTION_ORDER_MEMBERS, issues, at, io);
  });
  (seed.campaigns ?? []).forEach((c, index) => {
    const at = `campaigns[${index}]`;
    if (!orders.has(c.insertion_order_id))
      issues.add(`${at}.insertion_order_id`, `insertion order ${c.insertion_order_id} does not exist`);
    checkSeedMembers(CAMPAIGN_MEMBERS, issues, at, c);
  });
  for (const [campaignId, list] of Object.entries(seed.targetings ?? {})) {
    if (!campaigns.has(campaignId))
      issues.add(`targetings.${campaignId}`, `campaign ${campaignId} does not exist`);
    readTargetingList(issues, `targetings.${campaignId}`, list);
  }
  (seed.creatives ?? []).forEach((creative, index) => {
    const at = `creatives[${index}]`;
    if (!advertisers.has(creative.advertiser_id))
      issues.add(`${at}.advertiser_id`, `advertiser ${creative.advertiser_id} does not exist`);
    readTime(issues, `${at}.create_time`, creative.create_time);
    const ioIds = new Set(creative.insertion_order_ids ?? []);
    for (const id of creative.campaign_ids ?? []) {
      const campaign = campaigns.get(id);
      if (!campaign) issues.add(`${at}.campaign_ids`, `campaign ${id} does not exist`);
      else if (orders.get(campaign.insertion_order_id)?.advertiser_id !== creative.advertiser_id) {
        issues.add(`${at}.campaign_ids`, `advertiser does not match campaign ${id}`);
      } else if (!ioIds.has(campaign.insertion_order_id)) {
        issues.add(
          `${at}.insertion_order_ids`,
          `must include insertion order ${campaign.insertion_order_id} of campaign ${id} (G6 rule 3)`,
        );
      }
    }
    for (const id of ioIds) {
      const io = orders.get(id);
      if (!io) issues.add(`${at}.insertion_order_ids`, `insertion order ${id} does not exist`);
      else if (io.advertiser_id !== creative.advertiser_id)
        issues.add(`${at}.insertion_order_ids`, `advertiser does not match insertion order ${id}`);
    }
    for (const id of creative.category_ids ?? []) {
      if (!categories.has(id)) issues.add(`${at}.category_ids`, `category ${id} does not exist`);
    }
    (creative.audits ?? []).forEach((audit, n) => {
      if (!networks.has(audit.network_id))
        issues.add(`${at}.audits[${n}].network_id`, `network ${audit.network_id} does not exist`);
    });
  });
  if (issues.size > 0) return;
  // G8, per insertion order with its campaigns; violations are named by their index in the seed.
  const byOrder = new Map<string, CampaignRecord[]>();
  const campaignIndex = new Map<string, number>();
  (seed.campaigns ?? []).forEach((c, index) => {
    campaignIndex.set(c.id, index);
    const list = byOrder.get(c.insertion_order_id) ?? [];
    list.push(seeded<CampaignRecord>(CAMPAIGN_MEMBERS, c, (time) => time));
    byOrder.set(c.insertion_order_id, list);
  });
  (seed.insertion_orders ?? []).forEach((io, index) => {
    const order = seeded<InsertionOrder>(INSERTION_ORDER_MEMBERS, io, (time) => time);
    for (const v of checkInsertionOrder(order, byOrder.get(io.id) ?? [])) {
      const field =
        v.subject === "campaign"
          ? `campaigns[${campaignIndex.get(v.id)}].${v.field}`
          : `insertion_orders[${index}].${v.field}`;
      issues.add(field, v.message);
    }
  });
}

/**
 * A checked seed placed at the day of `now`: with `today`, every date moved by the whole days from
 * it to now's and `today` dropped; without it, as it is and 0 days.
 */
export function placeSeed(seed: EmulatorSeed, now: number): { seed: EmulatorSeed; days: number } {
  if (seed.today === undefined) return { seed, days: 0 };
  const { today, ...rest } = seed;
  const days = daysToPlace(today, now);
  return { seed: placeValue(rest, days), days };
}

/** Checks a parsed seed; throws a SeedError naming every problem's path. */
export function validateSeed(value: unknown, source = "the seed"): EmulatorSeed {
  if (!validateSchema(value)) throw new SeedError(source, schemaIssues(validateSchema.errors ?? []).toData());
  const seed = value as EmulatorSeed;
  const issues = new Issues();
  checkRules(seed, issues);
  if (issues.size > 0) throw new SeedError(source, issues.toData());
  return seed;
}

/** The dialect of a seed that passed `validateSeed`, when it has one. */
export function seedDialect(seed: EmulatorSeed): Dialect | undefined {
  return seed.dialect === undefined ? undefined : checkedDialect(seed.dialect, "the seed's dialect");
}

export async function loadSeedFile(path: string): Promise<EmulatorSeed> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw SeedError.of(path, `cannot be read (${code}): check the path`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw SeedError.of(path, `is not valid JSON: ${(error as Error).message}`);
  }
  return validateSeed(value, path);
}

/** Builds the store from a seed that passed `validateSeed`. */
export function buildStore(seed: EmulatorSeed): Store {
  const canonical = Time.parse;
  const store = new Store();
  for (const user of seed.users ?? []) store.addUser({ ...user });
  for (const a of sortById(seed.advertisers ?? [])) store.advertisers.set(a.id, { id: a.id, name: a.name });
  for (const c of sortById(seed.creative_categories ?? []))
    store.categories.set(c.id, { id: c.id, name: c.name });
  for (const n of sortById(seed.networks ?? [])) store.networks.set(n.id, { id: n.id, name: n.name });
  for (const io of sortById(seed.insertion_orders ?? [])) {
    store.insertionOrders.set(io.id, seeded<InsertionOrder>(INSERTION_ORDER_MEMBERS, io, canonical));
  }
  for (const c of sortById(seed.campaigns ?? [])) {
    store.putCampaign(seeded<CampaignRecord>(CAMPAIGN_MEMBERS, c, canonical));
  }
  const targetingIds = Object.keys(seed.targetings ?? {}).sort(compareIds);
  for (const id of targetingIds) {
    store.targetings.set(id, Targeting.normalizeList(seed.targetings?.[id] ?? []));
  }
  // A seed creative without `seat_id` belongs to the first user's account (docs/emulator.md).
  const defaultSeat = seed.users?.[0]?.account_id ?? "1";
  for (const c of sortById(seed.creatives ?? [])) {
    const record: CreativeRecord = {
      id: c.id,
      campaign_ids: sortedIds(c.campaign_ids ?? []),
      insertion_order_ids: sortedIds(c.insertion_order_ids ?? []),
      category_ids: sortedIds(c.category_ids ?? []),
      advertiser_id: c.advertiser_id,
      create_time: canonical(c.create_time),
      name: c.name,
      thumbnail_url: c.thumbnail_url ?? c.asset?.url ?? "",
      pixel_url: c.pixel_url ?? "",
      duration_ms: c.duration_ms ?? 0,
      archived: c.archived ?? false,
      type: c.type ?? "NONE",
      requires_audio: c.requires_audio ?? false,
      processing_status: c.processing_status ?? "PROCESSING",
      asset: c.asset ? { ...c.asset } : null,
      seat_id: c.seat_id ?? defaultSeat,
      audits: (c.audits ?? []).map((a) => ({
        network_id: a.network_id,
        status: a.status,
        message: a.message,
        last_reviewed: canonical(a.last_reviewed),
        category_ids: [...(a.category_ids ?? c.category_ids ?? [])],
        tag_ids: [...(a.tag_ids ?? [])],
        create_time: canonical(a.create_time ?? a.last_reviewed),
        last_reviewer: a.last_reviewer ?? "",
      })),
    };
    store.creatives.set(record.id, record);
  }
  return store;
}

/** The store as a seed (full audit records included), for the state file. */
export function storeToSeed(store: Store): EmulatorSeed {
  const targetings: Record<string, TargetingOptionSet[]> = {};
  for (const [id, list] of store.targetings) targetings[id] = structuredClone(list);
  return structuredClone({
    users: [...store.users.values()],
    advertisers: [...store.advertisers.values()],
    insertion_orders: [...store.insertionOrders.values()],
    campaigns: [...store.campaigns.values()],
    targetings,
    creatives: [...store.creatives.values()],
    creative_categories: [...store.categories.values()],
    networks: [...store.networks.values()],
  });
}
