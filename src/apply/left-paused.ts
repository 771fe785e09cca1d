/**
 * I1/I7: an active campaign that loses an option set is paused in phase 3 and reactivated in
 * phase 6. When an apply stops in between, the next plan reads live `active: false` and, if
 * the config leaves `active` undeclared, takes it as desired: nothing would ever reactivate
 * the campaign. So the result names every campaign this apply paused and did not reactivate.
 */
import type { LeftPausedCampaign } from "../model/apply-report.js";
import type { Plan } from "../plan/types.js";

/** Pauses (phase-3 request applied) without their reactivation (phase-6 request applied). */
export function leftPaused(plan: Plan, appliedSeqs: ReadonlySet<number>): LeftPausedCampaign[] {
  const seqOf = (changeId: string, phase: 3 | 6) =>
    plan.requests.find((r) => r.phase === phase && r.change_ids.includes(changeId))?.seq;
  return plan.changes.flatMap((change) => {
    if (change.kind !== "replace_targetings" || !change.pause) return [];
    const paused = seqOf(change.id, 3);
    const resumed = seqOf(change.id, 6);
    if (paused === undefined || !appliedSeqs.has(paused)) return [];
    if (resumed !== undefined && appliedSeqs.has(resumed)) return [];
    return [
      {
        change_id: change.id,
        address: change.address,
        insertion_order_id: change.campaign.insertion_order_id,
        campaign_id: change.campaign.campaign_id ?? "",
        name: change.campaign.name,
      },
    ];
  });
}
