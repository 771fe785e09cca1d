/**
 * Declared fields against live values (ARCHITECTURE.md#configuration), by the model's equality,
 * never raw JSON: `12.5 USD` equals its wire form, a `+01:00` time its UTC form.
 */
import { atomizeChangeset, diff as jsonDiff } from "json-diff-ts";
import type { CampaignFields, SourceRef } from "../../model/desired.js";
import { Money } from "../../model/money.js";
import { CAMPAIGN_FIELDS, type FieldKind, type FieldSpec, withFlag } from "../../model/resource-fields.js";
import { sortedIds } from "../../model/targeting.js";
import { Time } from "../../model/time.js";
import type { FieldChange, FieldDetail, JsonValue } from "../types.js";

/** Plain JSON copy of a wire value, for storing in a plan. */
export function toJson(value: unknown): JsonValue {
  // Strings and booleans are their own copy; the round trip is for objects (and NaN -> null).
  if (typeof value === "string" || typeof value === "boolean") return value;
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as JsonValue);
}

function idSetEquals(a: readonly string[], b: readonly string[]): boolean {
  const sa = sortedIds(a);
  const sb = sortedIds(b);
  return sa.length === sb.length && sa.every((id, i) => id === sb[i]);
}

/** Paths inside an opaque object (pacing, G2) that differ; json-diff-ts's types stay in this module. */
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
type Values = Readonly<Record<string, unknown>>;
type Opaque = Record<string, unknown>;

/** Equality of two values of one kind, by the model's own rules (see above). */
export function valuesEqual(kind: FieldKind, a: unknown, b: unknown): boolean {
  if (a === null || b === null) return a === b;
  switch (kind) {
    case "time":
      return Time.equals(a as string, b as string);
    case "money":
      return Money.equals(a as Money, b as Money);
    case "opaque":
      return pacingEquals(a as Opaque, (b ?? {}) as Opaque);
    case "id_list":
      return idSetEquals(a as string[], b as string[]);
    default:
      return a === b;
  }
}

/** A value as a plan shows it: an id list sorted, the rest as is. */
const shown = (kind: FieldKind, value: unknown) =>
  kind === "id_list" && Array.isArray(value) ? sortedIds(value as string[]) : value;

/** The compared members of `fields` that `desired` declares and `live` holds otherwise, in table order. */
export function diffFields(
  fields: readonly FieldSpec[],
  desired: object,
  live: object,
  sources: Sources<string>,
): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const { name, kind } of withFlag(fields, "compare")) {
    const want = (desired as Values)[name];
    if (want === undefined) continue;
    const have = (live as Values)[name];
    if (valuesEqual(kind, want, have)) continue;
    const fieldChange = change(name, shown(kind, have), shown(kind, want), sources[name]);
    if (kind === "opaque") fieldChange.details = objectDetails(name, (have ?? {}) as Opaque, want as Opaque);
    changes.push(fieldChange);
  }
  return changes;
}

/** A PATCH body: the `update` members of `fields` among `changed` (but `except`), as declared. */
export function patchOf(
  fields: readonly FieldSpec[],
  declared: object,
  changed: readonly FieldChange[],
  except: readonly string[] = [],
): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const { name, kind } of withFlag(fields, "update")) {
    const value = (declared as Values)[name];
    if (value === undefined || except.includes(name) || !changed.some((f) => f.field === name)) continue;
    patch[name] = shown(kind, value);
  }
  return patch;
}

export function pacingEquals(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return jsonDiff(a, b).length === 0;
}

/** Fields a new campaign is created with (G3); `active` is handled by the phases. */
export function createFields(desired: CampaignFields, sources: Sources<keyof CampaignFields>): FieldChange[] {
  const values: Values = desired;
  const changes: FieldChange[] = [];
  for (const { name } of withFlag(CAMPAIGN_FIELDS, "compare")) {
    const want = values[name];
    if (want !== undefined) changes.push(change(name, null, want, (sources as Sources<string>)[name]));
  }
  return changes;
}
