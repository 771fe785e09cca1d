/** Questions asked of one change, answered once so analyzers, policy, summary and renderers agree. */
import type { Change, DeactivateCampaign, UpdateCampaign } from "../types.js";

/** Whether it turns a live campaign off; a pause for a targeting change (I1), reactivated, is not. */
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
