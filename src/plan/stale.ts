/**
 * Is a saved plan still true? Re-reads every object the plan fingerprinted, in the fewest
 * requests (by id, 100 a request; targetings one each) and says per object what moved:
 * "campaign 5001: cpm 12.00 USD -> 13.00 USD since the plan was made".
 */
import type { DspClient, SendOptions } from "../api/types.js";
import { Money } from "../model/money.js";
import {
  campaignSnapshot,
  canonicalJson,
  creativeSnapshot,
  fingerprintOf,
  insertionOrderSnapshot,
  targetingsSnapshot,
} from "./fingerprint.js";
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
  if (
    value &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    "units" in value &&
    "currency_code" in value
  ) {
    return Money.format(value as unknown as Money);
  }
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

function explain(fp: Fingerprint, now: JsonValue | undefined): StaleObject | undefined {
  const label = `${LABEL[fp.kind]} ${fp.id}`;
  if (now === undefined) {
    return { kind: fp.kind, id: fp.id, status: "missing", fields: [], message: `${label} no longer exists` };
  }
  if (fingerprintOf(fp.kind, fp.id, now).sha256 === fp.sha256) return undefined;
  let fields: StaleObject["fields"];
  if (fp.kind === "targetings") {
    fields = [{ field: "targetings", before: fp.snapshot, now }];
  } else {
    const before = (fp.snapshot ?? {}) as Record<string, JsonValue>;
    const after = now as Record<string, JsonValue>;
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    fields = keys
      .filter((k) => canonicalJson(before[k] ?? null) !== canonicalJson(after[k] ?? null))
      .map((k) => ({ field: k, before: before[k] ?? null, now: after[k] ?? null }));
  }
  const what =
    fp.kind === "targetings"
      ? "changed"
      : fields.map((f) => `${f.field} ${show(f.before)} -> ${show(f.now)}`).join(", ");
  return {
    kind: fp.kind,
    id: fp.id,
    status: "changed",
    fields,
    message: `${label}: ${what} since the plan was made`,
  };
}

export async function checkStaleness(
  plan: Plan,
  client: DspClient,
  options: SendOptions = {},
): Promise<StaleObject[]> {
  const ids = (kind: ObjectKind) => plan.fingerprints.filter((f) => f.kind === kind).map((f) => f.id);
  const current = new Map<string, JsonValue>();
  const key = (kind: ObjectKind, id: string) => `${kind}:${id}`;
  const ioIds = ids("insertion_order");
  const campaignIds = ids("campaign");
  const targetingIds = ids("targetings");
  const creativeIds = ids("creative");
  const [ios, campaigns, creatives] = await Promise.all([
    ioIds.length > 0 ? client.getInsertionOrders(ioIds, options) : [],
    campaignIds.length > 0 ? client.getCampaigns(campaignIds, options) : [],
    creativeIds.length > 0 ? client.getCreatives(creativeIds, options) : [],
  ]);
  // Targetings of a campaign that no longer exists would answer 404: read only the living.
  const living = new Set(campaigns.map((c) => c.id));
  const readable = targetingIds.filter((id) => living.has(id));
  const targetings = readable.length > 0 ? await client.getTargetings(readable, options) : new Map();
  for (const io of ios) current.set(key("insertion_order", io.id), insertionOrderSnapshot(io));
  for (const c of campaigns) current.set(key("campaign", c.id), campaignSnapshot(c));
  for (const [id, sets] of targetings) current.set(key("targetings", id), targetingsSnapshot(sets));
  for (const c of creatives) current.set(key("creative", c.id), creativeSnapshot(c));
  // A campaign that vanished has no targetings either: report the campaign once.
  const missingCampaigns = new Set(targetingIds.filter((id) => !living.has(id)));
  return plan.fingerprints.flatMap((fp) => {
    if (fp.kind === "targetings" && missingCampaigns.has(fp.id)) return [];
    const stale = explain(fp, current.get(key(fp.kind, fp.id)));
    return stale ? [stale] : [];
  });
}
