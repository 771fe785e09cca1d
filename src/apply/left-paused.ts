/** I1/I7: campaigns paused for a targeting change and not reactivated when the apply stopped. */
import type { LeftPausedCampaign } from "../model/apply-report.js";
import { pauseSpans } from "../plan/requests/pauses.js";
import type { Plan } from "../plan/types.js";

/** Pauses sent (applied, or abandoned in flight) without their reactivation applied. */
export function leftPaused(
  plan: Plan,
  appliedSeqs: ReadonlySet<number>,
  sentSeqs: ReadonlySet<number>,
): LeftPausedCampaign[] {
  return pauseSpans(plan).flatMap((span) => {
    if (!sentSeqs.has(span.pause_seq)) return [];
    if (span.resume_seq !== undefined && appliedSeqs.has(span.resume_seq)) return [];
    return [
      {
        change_id: span.change_id,
        address: span.address,
        insertion_order_id: span.insertion_order_id,
        campaign_id: span.campaign_id,
        name: span.name,
        pause_confirmed: appliedSeqs.has(span.pause_seq),
      },
    ];
  });
}
