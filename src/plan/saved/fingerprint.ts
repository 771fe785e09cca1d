/** Fingerprints of the live objects a plan read: the fields deciding it, sha256, a snapshot (stale.ts). */
import { createHash } from "node:crypto";
import { Money } from "../../model/money.js";
import {
  CAMPAIGN_FIELDS,
  CREATIVE_FIELDS,
  type FieldKind,
  type FieldSpec,
  INSERTION_ORDER_FIELDS,
  withFlag,
} from "../../model/resource-fields.js";
import { compareIds, sortedIds, Targeting, type TargetingOptionSet } from "../../model/targeting.js";
import { Time } from "../../model/time.js";
import type { Campaign, InsertionOrder } from "../../model/wire.js";
import type { LiveIndex } from "../live-index.js";
import type { Fingerprint, JsonValue, LiveState, ObjectKind } from "../types.js";
import { canonicalJson, canonicalPair } from "./canonical.js";

/** A member's value as a fingerprint holds it: times, money and opaque objects canonical, id lists sorted. */
function snapshotValue(kind: FieldKind, value: unknown): JsonValue {
  if (value === null) return null;
  switch (kind) {
    case "time":
      return Time.parse(value as string);
    case "money":
      return Money.fromWire(value as Money) as unknown as JsonValue;
    case "opaque":
      return JSON.parse(canonicalJson(value ?? {})) as JsonValue;
    case "id_list":
      return sortedIds(value as string[]);
    default:
      return value as JsonValue;
  }
}

/** The `fingerprint` members of `fields` (resource-fields.ts) of a live object. */
export function snapshotOf(fields: readonly FieldSpec[], live: object): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const { name, kind } of withFlag(fields, "fingerprint")) {
    out[name] = snapshotValue(kind, (live as Record<string, unknown>)[name]);
  }
  return out;
}

/**
 * An insertion order as the plan saw it, with its campaigns' names by id (keys sort in canonical
 * JSON): a campaign added since (a name the plan is about to create, or one
 * `unmanaged_campaigns: deactivate` would act on) makes the plan stale.
 */
function insertionOrderSnapshot(io: InsertionOrder, campaigns: readonly Campaign[]): JsonValue {
  const names: Record<string, string> = {};
  for (const c of campaigns) if (c.insertion_order_id === io.id) names[c.id] = c.name;
  return { ...snapshotOf(INSERTION_ORDER_FIELDS, io), campaigns: names };
}

/** The known members, normalized, and any unknown ones (G14), whose coming or going makes a plan stale. */
export function targetingsSnapshot(sets: readonly TargetingOptionSet[]): JsonValue {
  const known = Targeting.normalizeList(sets) as unknown as JsonValue;
  const unknown = Targeting.unknownMembers(sets);
  return unknown.length > 0 ? { sets: known, unknown_members: unknown } : known;
}

export function fingerprintOf(kind: ObjectKind, id: string, snapshot: JsonValue): Fingerprint {
  const canonical = canonicalPair(snapshot);
  const sha256 = createHash("sha256").update(canonical.text).digest("hex");
  // Keys in canonical order, so that writing the plan need not copy 20,000 fingerprints.
  return { id, kind, sha256, snapshot: canonical.value as JsonValue };
}

function byId<T extends { id: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => compareIds(a.id, b.id));
}

/** `index`: the same state, indexed; `normalized`: targetings the planner normalized, by campaign. */
export function fingerprints(
  live: LiveState,
  index: LiveIndex,
  normalized: ReadonlyMap<string, TargetingOptionSet[]> = new Map(),
): Fingerprint[] {
  return [
    ...byId(live.insertionOrders).map((io) =>
      fingerprintOf("insertion_order", io.id, insertionOrderSnapshot(io, index.campaignsOf(io.id))),
    ),
    ...byId(live.campaigns).map((c) => fingerprintOf("campaign", c.id, snapshotOf(CAMPAIGN_FIELDS, c))),
    ...Object.keys(live.targetings)
      .sort(compareIds)
      .map((id) =>
        fingerprintOf(
          "targetings",
          id,
          Targeting.unknownMembers(live.targetings[id] ?? []).length === 0
            ? ((normalized.get(id) as JsonValue | undefined) ?? targetingsSnapshot(live.targetings[id] ?? []))
            : targetingsSnapshot(live.targetings[id] ?? []),
        ),
      ),
    // Only what decides writes: a creative's processing or audit status moving makes no plan stale.
    ...byId(live.creatives).map((c) => fingerprintOf("creative", c.id, snapshotOf(CREATIVE_FIELDS, c))),
  ];
}
