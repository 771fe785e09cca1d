/**
 * Deterministic large scenarios for benchmarks and soak tests: a live account (an emulator
 * seed in the API's own shapes) and a desired config that changes a chosen number of things.
 * Everything derives from `seed`, so a failing soak run is reproducible from its number.
 */
import { Document, isScalar, isSeq, stringify, visit } from "yaml";
import type { EmulatorStateView, SeedUser } from "../src/emulator/index.js";
import { seededRandom } from "../src/model/random.js";
import type { TargetingOptionSet } from "../src/model/targeting.js";
import type { Advertiser, Campaign, Creative, InsertionOrder } from "../src/model/wire.js";

export interface ScenarioOptions {
  insertionOrders: number;
  campaignsPerOrder: number;
  /** Creatives per insertion order (each associated with some of its campaigns). */
  creativesPerOrder?: number;
  /** How many campaigns get a cpm and budget change. */
  campaignUpdates?: number;
  /** How many campaigns get a targeting change; half of them remove a set from an active campaign. */
  targetingChanges?: number;
  /** How many creative-campaign associations are added or removed. */
  associationChanges?: number;
  seed?: number;
}

export interface Scenario {
  /** The emulator's own state view plus its users, so it passes as a seed as it is. */
  live: EmulatorStateView & { users: SeedUser[] };
  /** The desired config as one YAML document. */
  configYaml: string;
  /** The same config as a value, for splitting it into several files (`configFiles`). */
  config: ScenarioConfig;
  /** The desired state in the API's shapes: live with the requested changes applied. */
  desired: {
    campaigns: Campaign[];
    targetings: Record<string, TargetingOptionSet[]>;
    creatives: Creative[];
  };
  counts: { campaignUpdates: number; targetingChanges: number; associationChanges: number };
}

/**
 * The scenario of the issues' Performance sections: 200 insertion orders, 10,000 campaigns,
 * 400 creatives; 10,000 campaign updates, 200 targeting changes, 1,000 association changes.
 */
export const BENCH_SCENARIO: ScenarioOptions = {
  insertionOrders: 200,
  campaignsPerOrder: 50,
  creativesPerOrder: 2,
  campaignUpdates: 10_000,
  targetingChanges: 200,
  associationChanges: 1_000,
  seed: 8,
};

export interface ScenarioConfig {
  version: 1;
  insertion_orders: { id: string; campaigns: unknown[]; [field: string]: unknown }[];
}

/**
 * The scenario's config as `parts` files of consecutive insertion orders, named so that name
 * order is document order (a config directory is read in name order).
 */
export function configFiles(scenario: Scenario, parts: number): { name: string; text: string }[] {
  const orders = scenario.config.insertion_orders;
  const size = Math.ceil(orders.length / parts);
  const files: { name: string; text: string }[] = [];
  for (let i = 0; i * size < orders.length; i++) {
    const document = { version: 1, insertion_orders: orders.slice(i * size, (i + 1) * size) };
    files.push({ name: `part-${String(i).padStart(3, "0")}.yaml`, text: handWritten(document) });
  }
  return files;
}

/**
 * YAML as people write it (the example of docs/config.md): id lists, `pacing` and targeting options
 * in flow style on one line, the rest in block style.
 */
function handWritten(value: unknown): string {
  const doc = new Document(value);
  const scalars = (node: unknown) => isSeq(node) && node.items.every((item) => isScalar(item));
  visit(doc, {
    Map(_, node) {
      if (node.items.every((pair) => isScalar(pair.value) || scalars(pair.value))) node.flow = true;
    },
    Seq(_, node) {
      if (scalars(node)) node.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0 });
}

const IO_START = "2026-12-01T00:00:00Z";
const IO_END = "2027-06-01T00:00:00Z";
const CAMPAIGN_BUDGET = 10_000;

function usd(units: number, nanos = 0) {
  return { currency_code: "USD", units: String(units), nanos };
}

export function generateScenario(options: ScenarioOptions): Scenario {
  const random = seededRandom(options.seed ?? 1);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const creativesPerOrder = options.creativesPerOrder ?? 2;
  const advertisers: Advertiser[] = [
    { id: "1", name: "Northwind Beverages" },
    { id: "2", name: "Contoso Travel" },
  ];
  const insertionOrders: InsertionOrder[] = [];
  const campaigns: Campaign[] = [];
  const targetings: Record<string, TargetingOptionSet[]> = {};
  const creatives: Creative[] = [];
  let campaignId = 5000;
  let creativeId = 9000;

  for (let i = 0; i < options.insertionOrders; i++) {
    const io: InsertionOrder = {
      id: String(1001 + i),
      advertiser_id: i % 2 === 0 ? "1" : "2",
      name: `Order ${1001 + i}`,
      contract_number: `PO-${7000 + i}`,
      start_time: IO_START,
      end_time: IO_END,
      // Room for every campaign to double its budget, so updates stay within G8.
      budget_impressions: options.campaignsPerOrder * CAMPAIGN_BUDGET * 3,
      budget_money: usd(options.campaignsPerOrder * 500),
    };
    insertionOrders.push(io);
    const ioCampaigns: Campaign[] = [];
    for (let j = 0; j < options.campaignsPerOrder; j++) {
      campaignId++;
      const campaign: Campaign = {
        id: String(campaignId),
        insertion_order_id: io.id,
        name: `Campaign ${j + 1} of ${io.id}`,
        active: random() < 0.6,
        in_flight: false,
        start_time: "2026-12-15T00:00:00Z",
        end_time: "2027-03-01T00:00:00Z",
        budget_impressions: CAMPAIGN_BUDGET,
        cpm: usd(8 + Math.floor(random() * 8), 500_000_000),
        pacing: { strategy: pick(["even", "asap"]) },
      };
      campaigns.push(campaign);
      ioCampaigns.push(campaign);
      targetings[campaign.id] = [
        { venue_type_targeting_option: { venue_type_ids: [String(10 + (j % 5)), "20"], exclude: false } },
        { publisher_targeting_option: { publisher_ids: [String(70 + (j % 9))], exclude: true } },
      ];
    }
    for (let k = 0; k < creativesPerOrder; k++) {
      creativeId++;
      const associated = ioCampaigns.filter(() => random() < 0.5).map((c) => c.id);
      creatives.push({
        id: String(creativeId),
        campaign_ids: associated,
        insertion_order_ids: associated.length > 0 ? [io.id] : [],
        category_ids: ["1"],
        advertiser_id: io.advertiser_id,
        create_time: "2026-11-01T00:00:00Z",
        name: `Creative ${creativeId}`,
        thumbnail_url: `https://cdn.example.com/${creativeId}.png`,
        pixel_url: `https://pixel.example.com/p?c=${creativeId}`,
        duration_ms: 10_000,
        archived: false,
        type: "IMAGE",
        requires_audio: false,
        processing_status: "PROCESSED",
        asset: {
          url: `https://cdn.example.com/${creativeId}.png`,
          width: 1920,
          height: 1080,
          format: "image/png",
          file_size_bytes: 204_800,
        },
        audits: [],
      });
    }
  }

  // Desired state: live, plus the requested changes.
  const desired = structuredClone({ campaigns, targetings, creatives });
  const order = campaigns.map((_, index) => index).sort(() => random() - 0.5);
  const campaignUpdates = Math.min(options.campaignUpdates ?? 0, campaigns.length);
  for (const index of order.slice(0, campaignUpdates)) {
    const c = desired.campaigns[index]!;
    c.cpm = usd(Number(c.cpm.units) + 1, c.cpm.nanos);
    c.budget_impressions = CAMPAIGN_BUDGET + 1_000;
  }
  const targetingChanges = Math.min(options.targetingChanges ?? 0, campaigns.length);
  for (const [n, index] of order.slice(0, targetingChanges).entries()) {
    const c = desired.campaigns[index]!;
    const sets = desired.targetings[c.id]!;
    if (n % 2 === 0) {
      // Removes the publisher exclusion: on an active campaign this needs a pause (G5, I1).
      desired.targetings[c.id] = sets.slice(0, 1);
    } else {
      desired.targetings[c.id] = [...sets, { deal_targeting_option: { deal_ids: [`D-${c.id}`] } }];
    }
  }
  const byOrder = new Map<string, Campaign[]>();
  // Appended in place: copying the list per campaign was quadratic in an order's size.
  for (const c of campaigns) {
    const list = byOrder.get(c.insertion_order_id);
    if (list) list.push(c);
    else byOrder.set(c.insertion_order_id, [c]);
  }
  let associationChanges = 0;
  const wanted = options.associationChanges ?? 0;
  // Each creative-campaign pair toggles at most once, so the count is the net change.
  const toggled = new Set<string>();
  for (let n = 0; n < wanted * 4 && associationChanges < wanted; n++) {
    const creative = pick(desired.creatives);
    const ioId = insertionOrders.find(
      (io) => io.advertiser_id === creative.advertiser_id && byOrder.has(io.id),
    )?.id;
    const pool = byOrder.get(creative.insertion_order_ids[0] ?? ioId ?? "") ?? [];
    const campaign = pick(pool);
    if (!campaign) continue;
    const pair = `${creative.id}:${campaign.id}`;
    if (toggled.has(pair)) continue;
    toggled.add(pair);
    const has = creative.campaign_ids.includes(campaign.id);
    creative.campaign_ids = has
      ? creative.campaign_ids.filter((id) => id !== campaign.id)
      : [...creative.campaign_ids, campaign.id];
    associationChanges++;
  }

  const desiredById = new Map(desired.campaigns.map((c) => [c.id, c]));
  const creativesOf = new Map<string, string[]>();
  for (const creative of desired.creatives) {
    for (const id of creative.campaign_ids) {
      const list = creativesOf.get(id);
      if (list) list.push(creative.id);
      else creativesOf.set(id, [creative.id]);
    }
  }
  const config: ScenarioConfig = {
    version: 1,
    insertion_orders: insertionOrders.map((io) => ({
      id: io.id,
      start_time: io.start_time,
      end_time: io.end_time,
      budget_impressions: io.budget_impressions,
      campaigns: (byOrder.get(io.id) ?? []).map((live) => {
        const c = desiredById.get(live.id)!;
        return {
          name: c.name,
          id: c.id,
          active: c.active,
          start_time: c.start_time,
          end_time: c.end_time,
          budget_impressions: c.budget_impressions,
          cpm: `${c.cpm.units}.${String(c.cpm.nanos).padStart(9, "0").replace(/0+$/, "") || "0"} USD`,
          pacing: c.pacing,
          targetings: desired.targetings[c.id],
          creatives: (creativesOf.get(c.id) ?? []).sort(),
        };
      }),
    })),
  };

  let configYaml: string | undefined;
  return {
    live: {
      users: [{ email: "bench@doohctl.test", password: "bench-password", account_id: "1" }],
      advertisers,
      insertion_orders: insertionOrders,
      campaigns,
      targetings,
      creatives,
      creative_categories: [{ id: "1", name: "Beverages" }],
      networks: [{ id: "1", name: "Metro Screens" }],
    },
    // Lazy: a 10,000-campaign document takes seconds to stringify, and most callers split it.
    get configYaml() {
      configYaml ??= stringify(config, { lineWidth: 0 });
      return configYaml;
    },
    config,
    desired,
    counts: { campaignUpdates, targetingChanges, associationChanges },
  };
}
