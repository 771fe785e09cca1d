/**
 * Questions asked of one change of the closed union (types.ts, Change), answered in one
 * place so that the analyzers, the policy rules, the summary and the renderers agree.
 */
import type { Change, DeactivateCampaign, UpdateCampaign } from "../types.js";

/**
 * Whether the change turns a live campaign off: `unmanaged_campaigns: deactivate`, or a
 * declared `active: false`. A pause for a targeting change (I1) is not one: the campaign is
 * reactivated in the same apply.
 */
export function deactivates(change: Change): change is DeactivateCampaign | UpdateCampaign {
  if (change.kind === "deactivate_campaign") return true;
  return (
    change.kind === "update_campaign" && change.fields.some((f) => f.field === "active" && f.after === false)
  );
}

/** The ids of the changes that turn a live campaign off (`deactivates`), for a renderer to count. */
export function deactivatingChangeIds(changes: readonly Change[]): Set<string> {
  return new Set(changes.filter(deactivates).map((c) => c.id));
}
