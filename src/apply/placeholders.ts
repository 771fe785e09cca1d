/** Swaps the real ids of campaigns phase 2 created for their placeholders (`<new:c7>`). */
import { Placeholder } from "../plan/changes/placeholder.js";
import type { Change, JsonValue, PlannedRequest } from "../plan/types.js";

export class UnresolvedPlaceholderError extends Error {
  override readonly name = "UnresolvedPlaceholderError";
  readonly code = "APPLY_UNRESOLVED_PLACEHOLDER";
}

export class PlanIntegrityError extends Error {
  override readonly name = "PlanIntegrityError";
  readonly code = "APPLY_PLAN_INVALID";
}

/** `text` (a path, a body's string) with every placeholder replaced by its campaign's id. */
export function resolvePath(text: string, created: ReadonlyMap<string, string>): string {
  return Placeholder.resolve(
    text,
    (changeId) => created.get(changeId),
    (placeholder, changeId) => {
      throw new UnresolvedPlaceholderError(
        `${placeholder} names a campaign created by change ${changeId}, which this apply has not created; ` +
          "the plan file is inconsistent: make a new plan",
      );
    },
  );
}

/** The value with every placeholder replaced; values without one are returned as they are. */
export function resolvePlaceholders<T extends JsonValue>(value: T, created: ReadonlyMap<string, string>): T {
  if (typeof value === "string") return resolvePath(value, created) as T;
  if (Array.isArray(value)) return value.map((v) => resolvePlaceholders(v, created)) as T;
  if (value !== null && typeof value === "object") {
    const out: { [key: string]: JsonValue } = {};
    for (const [key, v] of Object.entries(value)) out[key] = resolvePlaceholders(v, created);
    return out as T;
  }
  return value;
}

/** For display of requests never sent: real ids where known, placeholders elsewhere. */
export function resolvePathIfKnown(path: string, created: ReadonlyMap<string, string>): string {
  return Placeholder.resolve(
    path,
    (changeId) => created.get(changeId),
    (placeholder) => placeholder,
  );
}

/** Takes in the ids of the campaigns `planned` created, by create change. */
export function recordNewIds(
  planned: PlannedRequest,
  ids: readonly string[],
  created: Map<string, string>,
  changesById: ReadonlyMap<string, Change>,
): void {
  ids.forEach((id, item) => {
    const changeId = planned.item_change_ids[item]?.find(
      (c) => changesById.get(c)?.kind === "create_campaign",
    );
    if (changeId === undefined) {
      throw new PlanIntegrityError(
        `request ${planned.seq} creates a campaign at item ${item} that names no create_campaign change; make a new plan`,
      );
    }
    created.set(changeId, id);
  });
}
