/** The result summary: what an apply achieved, counted per change kind and per request. */
import type { ApplyRequestRecord, ApplySummary } from "../model/apply-report.js";
import { pauseSpans } from "../plan/requests/pauses.js";
import type { Plan } from "../plan/types.js";

/**
 * A change is applied once all its requests were, partly once some were (what landed is on the
 * DSP). A targeting change stands by its PUT: the pause around it is reported apart
 * (`left_paused`, `restored`).
 */
export function applySummaryOf(
  plan: Plan,
  applied: readonly ApplyRequestRecord[],
  stats: { reads: number; writes: number; retries: number; rateLimited: number },
  elapsedMs: number,
): ApplySummary {
  const appliedSeqs = new Set(applied.map((r) => r.seq));
  const delivery = new Set(
    pauseSpans(plan).flatMap((s) => [`${s.change_id}@${s.pause_seq}`, `${s.change_id}@${s.resume_seq}`]),
  );
  /** Per change: how many requests carry it, and how many of those were applied. */
  const carried = new Map<string, { planned: number; applied: number }>();
  for (const request of plan.requests) {
    for (const id of request.change_ids) {
      if (delivery.has(`${id}@${request.seq}`)) continue;
      const tally = carried.get(id) ?? { planned: 0, applied: 0 };
      tally.planned++;
      if (appliedSeqs.has(request.seq)) tally.applied++;
      carried.set(id, tally);
    }
  }
  const actions: Record<string, number> = {};
  const partly: Record<string, number> = {};
  for (const change of plan.changes) {
    const tally = carried.get(change.id);
    if (tally === undefined || tally.applied === 0) continue;
    const into = tally.applied === tally.planned ? actions : partly;
    into[change.kind] = (into[change.kind] ?? 0) + 1;
  }
  return {
    actions,
    ...(Object.keys(partly).length > 0 ? { partly_applied: partly } : {}),
    planned_requests: plan.requests.length,
    applied_requests: applied.length,
    write_requests: stats.writes,
    read_requests: stats.reads,
    retries: stats.retries,
    rate_limited: stats.rateLimited,
    elapsed_ms: elapsedMs,
  };
}
