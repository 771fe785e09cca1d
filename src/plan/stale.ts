/**
 * Is a saved plan still true? Re-reads every object the plan fingerprinted, in the fewest
 * requests (by id or insertion order, 100 a request; targetings one each) and says per object
 * what moved: "campaign 5001: cpm 12.00 USD -> 13.00 USD since the plan was made",
 * "insertion order 1001: campaign 5009 "January clearance" was added since the plan was made".
 */
import type { DspClient, SendOptions } from "../api/types.js";
import { Money } from "../model/money.js";
import { compareIds } from "../model/targeting.js";
import {
  campaignSnapshot,
  canonicalJson,
  creativeSnapshot,
  fingerprintOf,
  insertionOrderSnapshot,
  targetingsSnapshot,
} from "./fingerprint.js";
import { LiveIndex } from "./live-index.js";
import type { Fingerprint, JsonValue, ObjectKind, Plan } from "./types.js";

export interface StaleObject {
  kind: ObjectKind;
  id: string;
  /** `missing`: the object no longer exists. */
  status: "changed" | "missing";
  fields: { field: string; before: JsonValue; now: JsonValue }[];
  message: string;
}

const LABEL: Record<ObjectKind, string> = {
  insertion_order: "insertion order",
  campaign: "campaign",
  targetings: "targetings of campaign",
  creative: "creative",
};

function show(value: JsonValue): string {
  if (Money.isWire(value)) return Money.format(value as Money);
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

function fieldDiffs(before: Record<string, JsonValue>, after: Record<string, JsonValue>) {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys
    .filter((k) => canonicalJson(before[k] ?? null) !== canonicalJson(after[k] ?? null))
    .map((k) => ({ field: k, before: before[k] ?? null, now: after[k] ?? null }));
}

type Names = Record<string, string>;

/**
 * What moved in an insertion order's campaign set. A campaign gone is said once, by its own
 * fingerprint ("campaign 5002 no longer exists"), so only the others are named here.
 */
function campaignSetChanges(before: Names, now: Names, reported: ReadonlySet<string>): string[] {
  const added = Object.keys(now)
    .filter((id) => !(id in before))
    .sort(compareIds)
    .map((id) => `campaign ${id} ${JSON.stringify(now[id])} was added`);
  const removed = Object.keys(before)
    .filter((id) => !(id in now) && !reported.has(id))
    .sort(compareIds)
    .map((id) => `campaign ${id} ${JSON.stringify(before[id])} was removed`);
  return [...added, ...removed];
}

function explain(
  fp: Fingerprint,
  now: JsonValue | undefined,
  missing: ReadonlySet<string>,
): StaleObject | undefined {
  const label = `${LABEL[fp.kind]} ${fp.id}`;
  if (now === undefined) {
    return { kind: fp.kind, id: fp.id, status: "missing", fields: [], message: `${label} no longer exists` };
  }
  const before = (fp.snapshot ?? {}) as Record<string, JsonValue>;
  let after = now as Record<string, JsonValue>;
  // Plans saved before insertion orders fingerprinted their campaigns: compare what they hold.
  if (fp.kind === "insertion_order" && !("campaigns" in before)) {
    const { campaigns: _, ...rest } = after;
    after = rest;
  }
  if (fingerprintOf(fp.kind, fp.id, after).sha256 === fp.sha256) return undefined;
  if (fp.kind === "targetings") {
    const fields = [{ field: "targetings", before: fp.snapshot, now }];
    return {
      kind: fp.kind,
      id: fp.id,
      status: "changed",
      fields,
      message: `${label}: changed since the plan was made`,
    };
  }
  const fields = fieldDiffs(before, after);
  const parts = fields.flatMap((f) =>
    f.field === "campaigns" && fp.kind === "insertion_order"
      ? campaignSetChanges((f.before ?? {}) as Names, (f.now ?? {}) as Names, missing)
      : [`${f.field} ${show(f.before)} -> ${show(f.now)}`],
  );
  if (parts.length === 0) return undefined;
  return {
    kind: fp.kind,
    id: fp.id,
    status: "changed",
    fields,
    message: `${label}: ${parts.join(", ")} since the plan was made`,
  };
}

/** What moved in one object since `fp` was taken; undefined when nothing did. */
export function describeStale(fp: Fingerprint, now: JsonValue | undefined): StaleObject | undefined {
  return explain(fp, now, new Set());
}

/**
 * Re-reads what the plan fingerprinted. Campaigns come from listing the fingerprinted
 * insertion orders (`filter=insertion_order_id:`), which costs no more requests than reading
 * them by id and also returns campaigns added since; a fingerprinted campaign of another
 * insertion order (a pinned id the plan found elsewhere) is read by id.
 */
export async function checkStaleness(
  plan: Plan,
  client: DspClient,
  options: SendOptions = {},
): Promise<StaleObject[]> {
  const of = (kind: ObjectKind) => plan.fingerprints.filter((f) => f.kind === kind);
  const current = new Map<string, JsonValue>();
  const key = (kind: ObjectKind, id: string) => `${kind}:${id}`;
  const ioIds = of("insertion_order").map((f) => f.id);
  const listed = new Set(ioIds);
  const strays = of("campaign")
    .filter((f) => !listed.has(String((f.snapshot as Record<string, JsonValue>)?.insertion_order_id)))
    .map((f) => f.id);
  const targetingIds = of("targetings").map((f) => f.id);
  const creativeIds = of("creative").map((f) => f.id);
  const [ios, ioCampaigns, strayCampaigns, creatives] = await Promise.all([
    ioIds.length > 0 ? client.getInsertionOrders(ioIds, options) : [],
    ioIds.length > 0 ? client.listCampaignsByInsertionOrder(ioIds, options) : [],
    strays.length > 0 ? client.getCampaigns(strays, options) : [],
    creativeIds.length > 0 ? client.getCreatives(creativeIds, options) : [],
  ]);
  const campaigns = [...ioCampaigns, ...strayCampaigns];
  // Targetings of a campaign that no longer exists would answer 404: read only the living.
  const living = new Set(campaigns.map((c) => c.id));
  const readable = targetingIds.filter((id) => living.has(id));
  const targetings = readable.length > 0 ? await client.getTargetings(readable, options) : new Map();
  // Only the listed campaigns: a campaign read by id is not one of a listed insertion order.
  const listedNow = LiveIndex.of({ insertionOrders: ios, campaigns: ioCampaigns, creatives });
  for (const io of ios) {
    current.set(key("insertion_order", io.id), insertionOrderSnapshot(io, listedNow.campaignsOf(io.id)));
  }
  for (const c of campaigns) current.set(key("campaign", c.id), campaignSnapshot(c));
  for (const [id, sets] of targetings) current.set(key("targetings", id), targetingsSnapshot(sets));
  for (const c of creatives) current.set(key("creative", c.id), creativeSnapshot(c));
  const missing = new Set(
    of("campaign")
      .filter((f) => !living.has(f.id))
      .map((f) => f.id),
  );
  // A campaign that vanished has no targetings either: report the campaign once.
  return plan.fingerprints.flatMap((fp) => {
    if (fp.kind === "targetings" && !living.has(fp.id)) return [];
    const stale = explain(fp, current.get(key(fp.kind, fp.id)), missing);
    return stale ? [stale] : [];
  });
}
