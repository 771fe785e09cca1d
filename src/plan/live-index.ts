/**
 * The live state a plan read, indexed once per plan (ARCHITECTURE.md#identity): every lookup
 * goes through it, so 10,000 campaigns plan in linear time and nothing groups the state again.
 */
import type { Campaign, Creative, InsertionOrder } from "../model/wire.js";
import type { LiveState } from "./types.js";

/** The parts of a live state the index covers; the reader indexes what it has read so far. */
export type IndexedState = Pick<LiveState, "insertionOrders" | "campaigns" | "creatives">;

export interface LiveIndex {
  readonly insertionOrders: ReadonlyMap<string, InsertionOrder>;
  readonly campaigns: ReadonlyMap<string, Campaign>;
  readonly creatives: ReadonlyMap<string, Creative>;
  /** Live campaigns of an insertion order, in the order read. */
  campaignsOf(insertionOrderId: string): readonly Campaign[];
  /** Live campaigns of an insertion order with this exact name: more than one is DOOH002. */
  campaignsNamed(insertionOrderId: string, name: string): readonly Campaign[];
  /** Live creatives associated with a campaign, in the order read. */
  creativesOf(campaignId: string): readonly Creative[];
}

const NONE: readonly never[] = [];

function byId<T extends { id: string }>(items: readonly T[]): Map<string, T> {
  return new Map(items.map((item) => [item.id, item]));
}

function push<T>(groups: Map<string, T[]>, key: string, item: T): void {
  const list = groups.get(key);
  if (list) list.push(item);
  else groups.set(key, [item]);
}

/** One insertion order's live campaigns, in the order read, and by name. */
interface OrderCampaigns {
  all: Campaign[];
  byName: Map<string, Campaign[]>;
}

function of(live: IndexedState): LiveIndex {
  const byInsertionOrder = new Map<string, OrderCampaigns>();
  for (const campaign of live.campaigns) {
    let order = byInsertionOrder.get(campaign.insertion_order_id);
    if (!order) {
      order = { all: [], byName: new Map() };
      byInsertionOrder.set(campaign.insertion_order_id, order);
    }
    order.all.push(campaign);
    push(order.byName, campaign.name, campaign);
  }
  const byCampaign = new Map<string, Creative[]>();
  for (const creative of live.creatives) {
    for (const campaignId of creative.campaign_ids) push(byCampaign, campaignId, creative);
  }
  return {
    insertionOrders: byId(live.insertionOrders),
    campaigns: byId(live.campaigns),
    creatives: byId(live.creatives),
    campaignsOf: (insertionOrderId) => byInsertionOrder.get(insertionOrderId)?.all ?? NONE,
    campaignsNamed: (insertionOrderId, name) =>
      byInsertionOrder.get(insertionOrderId)?.byName.get(name) ?? NONE,
    creativesOf: (campaignId) => byCampaign.get(campaignId) ?? NONE,
  };
}

export const LiveIndex = { of };
