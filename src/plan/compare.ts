/**
 * Field-level comparison of declared fields against live values. Only what the config
 * declares is compared (ARCHITECTURE.md#configuration); values are compared with the model's own
 * equality (Money.equals, Time.equals, id sets), never as raw JSON, so `12.5 USD` equals
 * `{units: "12", nanos: 500000000}` and `+01:00` times equal their UTC form.
 */
import { atomizeChangeset, diff as jsonDiff } from "json-diff-ts";
import type { CampaignFields, CreativeFields, InsertionOrderFields, SourceRef } from "../model/desired.js";
import { Money } from "../model/money.js";
import { sortedIds } from "../model/targeting.js";
import { Time } from "../model/time.js";
import type { Campaign, Creative, InsertionOrder } from "../model/wire.js";
import type { FieldChange, FieldDetail, JsonValue } from "./types.js";

/** Plain JSON copy of a wire value, for storing in a plan. */
export function toJson(value: unknown): JsonValue {
  // Strings and booleans are their own copy; the round trip is for objects (and NaN -> null).
  if (typeof value === "string" || typeof value === "boolean") return value;
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as JsonValue);
}

function moneyOrNullEquals(a: Money | null, b: Money | null): boolean {
  if (a === null || b === null) return a === b;
  return Money.equals(a, b);
}

function idSetEquals(a: readonly string[], b: readonly string[]): boolean {
  const sa = sortedIds(a);
  const sb = sortedIds(b);
  return sa.length === sb.length && sa.every((id, i) => id === sb[i]);
}

/**
 * Paths inside an opaque object (pacing, G2) that differ, via json-diff-ts; its change
 * objects stay in this module and come out as our own FieldDetail values.
 */
export function objectDetails(
  field: string,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): FieldDetail[] {
  return atomizeChangeset(jsonDiff(before, after)).map((change) => ({
    path: `${field}${change.path.slice(1)}`,
    before: change.type === "ADD" ? null : toJson(change.oldValue ?? change.value),
    after: change.type === "REMOVE" ? null : toJson(change.value),
  }));
}

function change(field: string, before: unknown, after: unknown, source: SourceRef | undefined): FieldChange {
  const result: FieldChange = { field, before: toJson(before), after: toJson(after) };
  if (source) result.source = source;
  return result;
}

type Sources<K extends string> = Partial<Record<K, SourceRef>>;

const IO_FIELDS = [
  "contract_number",
  "start_time",
  "end_time",
  "budget_impressions",
  "budget_money",
] as const;

export function diffInsertionOrder(
  desired: InsertionOrderFields,
  live: InsertionOrder,
  sources: Sources<keyof InsertionOrderFields>,
): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of IO_FIELDS) {
    const want = desired[field];
    if (want === undefined) continue;
    const have = live[field];
    const same =
      field === "start_time" || field === "end_time"
        ? Time.equals(want as string, have as string)
        : field === "budget_money"
          ? moneyOrNullEquals(want as Money | null, have as Money | null)
          : want === have;
    if (!same) changes.push(change(field, have, want, sources[field]));
  }
  return changes;
}

const CAMPAIGN_FIELDS = ["active", "start_time", "end_time", "budget_impressions", "cpm", "pacing"] as const;

export function pacingEquals(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return jsonDiff(a, b).length === 0;
}

export function diffCampaign(
  desired: CampaignFields,
  live: Campaign,
  sources: Sources<keyof CampaignFields>,
): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of CAMPAIGN_FIELDS) {
    const want = desired[field];
    if (want === undefined) continue;
    const have = live[field];
    let same: boolean;
    switch (field) {
      case "start_time":
      case "end_time":
        same = Time.equals(want as string, have as string);
        break;
      case "cpm":
        same = Money.equals(want as Money, have as Money);
        break;
      case "pacing":
        same = pacingEquals(want as Record<string, unknown>, (have ?? {}) as Record<string, unknown>);
        break;
      default:
        same = want === have;
    }
    if (same) continue;
    const fieldChange = change(field, have, want, sources[field]);
    if (field === "pacing") {
      fieldChange.details = objectDetails(
        "pacing",
        (have ?? {}) as Record<string, unknown>,
        want as Record<string, unknown>,
      );
    }
    changes.push(fieldChange);
  }
  return changes;
}

/** Fields a new campaign is created with (G3); `active` is handled by the phases. */
export function createFields(desired: CampaignFields, sources: Sources<keyof CampaignFields>): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of CAMPAIGN_FIELDS) {
    const want = desired[field];
    if (want !== undefined) changes.push(change(field, null, want, sources[field]));
  }
  return changes;
}

export function diffCreative(
  desired: CreativeFields,
  live: Creative,
  sources: Sources<keyof CreativeFields>,
): FieldChange[] {
  const changes: FieldChange[] = [];
  if (desired.category_ids !== undefined && !idSetEquals(desired.category_ids, live.category_ids)) {
    changes.push(
      change(
        "category_ids",
        sortedIds(live.category_ids),
        sortedIds(desired.category_ids),
        sources.category_ids,
      ),
    );
  }
  if (desired.pixel_url !== undefined && desired.pixel_url !== live.pixel_url) {
    changes.push(change("pixel_url", live.pixel_url, desired.pixel_url, sources.pixel_url));
  }
  return changes;
}
