/**
 * What moved in a fingerprinted object since a plan was made ("campaign 5001: cpm 12.00 USD ->
 * 13.00 USD since the plan was made"), as proposal.ts and apply/guard.ts both say it.
 */
import { Money } from "../../model/money.js";
import { compareIds } from "../../model/targeting.js";
import type { Fingerprint, JsonValue, ObjectKind } from "../types.js";
import { canonicalJson } from "./canonical.js";
import { fingerprintOf } from "./fingerprint.js";

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

/** What moved in an insertion order's campaign set. */
function campaignSetChanges(before: Names, now: Names): string[] {
  const added = Object.keys(now)
    .filter((id) => !(id in before))
    .sort(compareIds)
    .map((id) => `campaign ${id} ${JSON.stringify(now[id])} was added`);
  const removed = Object.keys(before)
    .filter((id) => !(id in now))
    .sort(compareIds)
    .map((id) => `campaign ${id} ${JSON.stringify(before[id])} was removed`);
  return [...added, ...removed];
}

/** What moved in one object since `fp` was taken; undefined when nothing did. */
export function describeStale(fp: Fingerprint, now: JsonValue | undefined): StaleObject | undefined {
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
      ? campaignSetChanges((f.before ?? {}) as Names, (f.now ?? {}) as Names)
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
