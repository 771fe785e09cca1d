/** The result summary: what an apply achieved, counted per change kind and per request. */
import type { ApplyRequestRecord, ApplySummary } from "../model/apply-report.js";
import type { Plan } from "../plan/types.js";

/** A change counts as applied once every request that carries it was applied. */
export function applySummaryOf(
  plan: Plan,
  applied: readonly ApplyRequestRecord[],
  stats: { reads: number; writes: number; retries: number; rateLimited: number },
  elapsedMs: number,
): ApplySummary {
  const remaining = new Map<string, number>();
  for (const request of plan.requests) {
    for (const id of request.change_ids) remaining.set(id, (remaining.get(id) ?? 0) + 1);
  }
  const appliedSeqs = new Set(applied.map((r) => r.seq));
  for (const request of plan.requests) {
    if (!appliedSeqs.has(request.seq)) continue;
    for (const id of request.change_ids) remaining.set(id, (remaining.get(id) ?? 1) - 1);
  }
  const actions: Record<string, number> = {};
  for (const change of plan.changes) {
    if ((remaining.get(change.id) ?? 1) === 0) actions[change.kind] = (actions[change.kind] ?? 0) + 1;
  }
  return {
    actions,
    planned_requests: plan.requests.length,
    applied_requests: applied.length,
    write_requests: stats.writes,
    read_requests: stats.reads,
    retries: stats.retries,
    rate_limited: stats.rateLimited,
    elapsed_ms: elapsedMs,
  };
}
