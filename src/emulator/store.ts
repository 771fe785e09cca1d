/**
 * The emulator's in-memory state: a Map per resource in ascending id order (new ids are max + 1, a
 * seed is sorted on load) and campaigns by insertion order, fast with 10,000 campaigns. Records hold
 * stored fields; derived ones (`in_flight`, `progress`, the DSP `audits`) come from the clock.
 */
import { compareIds, type TargetingOptionSet } from "../model/targeting.js";
import { Time } from "../model/time.js";
import type {
  Advertiser,
  AuditStatus,
  Campaign,
  Creative,
  CreativeCategory,
  InsertionOrder,
  Network,
} from "../model/wire.js";
import { type Accrual, accrue, progressOf, startAccrual } from "./delivery.js";
import { CAMPAIGN_MEMBERS, viewOf } from "./members.js";

export interface UserRecord {
  email: string;
  password: string;
  account_id: string;
  /** The network a media-owner user reviews for (G11); defaults to the lowest network id. */
  network_id?: string;
}

export type CampaignRecord = Omit<Campaign, "in_flight" | "progress">;

/** A network's review of a creative: the media-owner audit, of which the DSP view shows a part. */
export interface AuditRecord {
  network_id: string;
  status: AuditStatus;
  message: string;
  last_reviewed: string;
  category_ids: string[];
  tag_ids: string[];
  create_time: string;
  last_reviewer: string;
}

/** A creative as stored: the DSP view and its seat, its creator's `account_id`, which the view hides. */
export type CreativeRecord = Omit<Creative, "audits"> & { audits: AuditRecord[]; seat_id: string };

/** What `state()` and `GET /__emulator/state` show, in the API's own shapes. */
export interface EmulatorStateView {
  advertisers: Advertiser[];
  insertion_orders: InsertionOrder[];
  campaigns: Campaign[];
  targetings: Record<string, TargetingOptionSet[]>;
  creatives: Creative[];
  creative_categories: CreativeCategory[];
  networks: Network[];
}

/** After this long on the emulator's clock a new creative leaves PROCESSING (G6, see docs). */
export const PROCESSING_DELAY_MS = 30_000;

const instants = new Map<string, number>();
const jsonParts = new WeakMap<CampaignRecord, [string, string]>();

/** Milliseconds of a canonical time, memoized: list pages read hundreds of them a request. */
export function instant(text: string): number {
  let ms = instants.get(text);
  if (ms === undefined) {
    if (instants.size > 50_000) instants.clear();
    ms = Time.toMillis(text);
    instants.set(text, ms);
  }
  return ms;
}

export function sortById<T extends { id: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => compareIds(a.id, b.id));
}

/** Ids are numeric strings; a new one is the largest of its resource plus one. */
export function nextId(map: ReadonlyMap<string, unknown>): string {
  let max = 0n;
  for (const id of map.keys()) {
    if (/^[0-9]+$/.test(id) && BigInt(id) > max) max = BigInt(id);
  }
  return (max + 1n).toString();
}

/** Enough for every filter of a plan's read in flight at once; bounded so memory is. */
const MAX_CACHED_LISTS = 256;

export class Store {
  readonly users = new Map<string, UserRecord>();
  readonly advertisers = new Map<string, Advertiser>();
  readonly insertionOrders = new Map<string, InsertionOrder>();
  readonly campaigns = new Map<string, CampaignRecord>();
  readonly campaignsByIo = new Map<string, Set<string>>();
  readonly targetings = new Map<string, TargetingOptionSet[]>();
  readonly creatives = new Map<string, CreativeRecord>();
  readonly categories = new Map<string, CreativeCategory>();
  readonly networks = new Map<string, Network>();
  /** Creatives created through the API and when they finish processing (clock ms). */
  readonly processingDue = new Map<string, number>();
  /** What each campaign has delivered (delivery.ts); without an entry, as seeded since its start. */
  readonly delivery = new Map<string, Accrual>();
  /** Campaigns with at least one creative, built when needed; dropped on a creative write. */
  private withCreative: Set<string> | undefined;

  userByEmail(email: string): UserRecord | undefined {
    return this.users.get(email.toLowerCase());
  }

  addUser(user: UserRecord): void {
    this.users.set(user.email.toLowerCase(), user);
  }

  /** Sorted candidate lists by filter (see `sortedCampaigns`), valid until a campaign write. */
  private readonly campaignLists = new Map<string, readonly CampaignRecord[]>();

  putCampaign(record: CampaignRecord): void {
    this.campaignLists.clear();
    this.campaigns.set(record.id, record);
    const ids = this.campaignsByIo.get(record.insertion_order_id) ?? new Set<string>();
    this.campaignsByIo.set(record.insertion_order_id, ids.add(record.id));
  }

  /**
   * A campaign write: delivery accrues to `now` under the old record first, so a pause keeps what was
   * delivered and a new cpm prices only what follows.
   */
  writeCampaign(record: CampaignRecord, now: number): void {
    const current = this.campaigns.get(record.id);
    if (current) this.accrue(current, now);
    else this.delivery.set(record.id, startAccrual(now, record.cpm));
    this.putCampaign(record);
  }

  /** Creative writes through the API: the campaigns they join or leave accrue up to `now` first. */
  putCreatives(records: readonly CreativeRecord[], now: number): void {
    const touched = new Set<string>();
    for (const record of records) {
      for (const id of this.creatives.get(record.id)?.campaign_ids ?? []) touched.add(id);
      for (const id of record.campaign_ids) touched.add(id);
    }
    for (const id of touched) {
      const campaign = this.campaigns.get(id);
      if (campaign) this.accrue(campaign, now);
    }
    for (const record of records) this.creatives.set(record.id, record);
    this.withCreative = undefined;
  }

  private hasCreative(campaignId: string): boolean {
    if (!this.withCreative) {
      this.withCreative = new Set();
      for (const creative of this.creatives.values()) {
        for (const id of creative.campaign_ids) this.withCreative.add(id);
      }
    }
    return this.withCreative.has(campaignId);
  }

  /** The campaign's delivery brought up to `now` (G2 progress), stored. */
  accrue(record: CampaignRecord, now: number): Accrual {
    const start = instant(record.start_time);
    const previous = this.delivery.get(record.id) ?? startAccrual(start, record.cpm);
    const next = accrue(
      previous,
      {
        id: record.id,
        active: record.active,
        start,
        end: instant(record.end_time),
        budget_impressions: record.budget_impressions,
        cpm: record.cpm,
        hasCreative: this.hasCreative(record.id),
      },
      now,
    );
    this.delivery.set(record.id, next);
    return next;
  }

  campaignsOf(insertionOrderId: string): CampaignRecord[] {
    return [...(this.campaignsByIo.get(insertionOrderId) ?? [])].flatMap(
      (id) => this.campaigns.get(id) ?? [],
    );
  }

  /**
   * The campaigns with one of `values` as id or insertion order, by id: kept until the next campaign
   * write, since a client pages through one filter a page a request.
   */
  sortedCampaigns(
    field: "id" | "insertion_order_id",
    values: ReadonlySet<string>,
  ): readonly CampaignRecord[] {
    const key = `${field}\n${[...values].join("\n")}`;
    let list = this.campaignLists.get(key);
    if (!list) {
      const records =
        field === "id"
          ? [...values].flatMap((id) => this.campaigns.get(id) ?? [])
          : [...values].flatMap((io) => this.campaignsOf(io));
      list = sortById(records);
      if (this.campaignLists.size >= MAX_CACHED_LISTS) this.campaignLists.clear();
      this.campaignLists.set(key, list);
    }
    return list;
  }

  /** G6: moves created creatives out of PROCESSING once their time has come. */
  settle(now: number): void {
    for (const [id, due] of this.processingDue) {
      if (due > now) continue;
      const creative = this.creatives.get(id);
      this.processingDue.delete(id);
      if (creative?.processing_status !== "PROCESSING") continue;
      const https = creative.asset?.url.startsWith("https://") === true;
      creative.processing_status = https ? "PROCESSED" : "FAILED";
    }
  }

  /**
   * A campaign's JSON as a list page sends it. Records are replaced, never mutated, so the text around
   * the clock-dependent `in_flight` is cached per record: a page is string concatenation (2,000 pages
   * a second with 10,000 campaigns).
   */
  campaignJson(record: CampaignRecord, now: number): string {
    let parts = jsonParts.get(record);
    if (!parts) {
      const text = JSON.stringify(this.campaignView(record, 0));
      const marker = '"in_flight":false';
      const at = text.indexOf(marker) + marker.length - "false".length;
      parts = [text.slice(0, at), text.slice(at + "false".length)];
      jsonParts.set(record, parts);
    }
    const inFlight = now >= instant(record.start_time) && now < instant(record.end_time);
    return parts[0] + (inFlight ? "true" : "false") + parts[1];
  }

  campaignView(record: CampaignRecord, now: number, withProgress = false): Campaign {
    // G2: in flight while now is within [start_time, end_time).
    const in_flight = now >= instant(record.start_time) && now < instant(record.end_time);
    const progress = withProgress ? progressOf(this.accrue(record, now)) : undefined;
    return viewOf<Campaign>(CAMPAIGN_MEMBERS, record, { in_flight, progress });
  }

  /** The creative when it belongs to `seat`: another seat's creative does not exist for it. */
  creativeOfSeat(id: string, seat: string): CreativeRecord | undefined {
    const creative = this.creatives.get(id);
    return creative?.seat_id === seat ? creative : undefined;
  }

  creativeView(record: CreativeRecord): Creative {
    const { seat_id: _seat, ...fields } = record;
    return {
      ...structuredClone(fields),
      audits: record.audits.map((a) => ({
        network_id: a.network_id,
        status: a.status,
        message: a.message,
        last_reviewed: a.last_reviewed,
      })),
    };
  }

  view(now: number): EmulatorStateView {
    this.settle(now);
    const targetings: Record<string, TargetingOptionSet[]> = {};
    for (const [id, list] of this.targetings) targetings[id] = structuredClone(list);
    return {
      advertisers: [...this.advertisers.values()].map((a) => ({ ...a })),
      insertion_orders: [...this.insertionOrders.values()].map((io) => structuredClone(io)),
      campaigns: [...this.campaigns.values()].map((c) => this.campaignView(c, now)),
      targetings,
      creatives: [...this.creatives.values()].map((c) => this.creativeView(c)),
      creative_categories: [...this.categories.values()].map((c) => ({ ...c })),
      networks: [...this.networks.values()].map((n) => ({ ...n })),
    };
  }
}
