/** The apply result (I7): applied, failed and why, abandoned or unsent, created, still paused. */
import type { ClientStats } from "../api/types.js";
import type {
  ApplyFailure,
  ApplyRequestRecord,
  ApplyResult,
  ApplyStatus,
  LeftPausedCampaign,
} from "../model/apply-report.js";
import type { Plan } from "../plan/types.js";
import { resolvePathIfKnown } from "./placeholders.js";
import type { RestoreOutcome } from "./restore.js";
import { applySummaryOf } from "./summary.js";

export interface ResultInput {
  plan: Plan;
  applied: ApplyRequestRecord[];
  failure: ApplyFailure | undefined;
  abandoned: ApplyRequestRecord | undefined;
  /** Index of the plan's first request not sent. */
  unsentFrom: number;
  created: ReadonlyMap<string, string>;
  /** The client's counts before and after the apply. */
  statsBefore: ClientStats;
  statsAfter: ClientStats;
  startedAt: number;
  finishedAt: number;
  leftPaused: LeftPausedCampaign[];
  restore: RestoreOutcome | undefined;
}

function statusOf(input: ResultInput): ApplyStatus {
  if (input.failure) return "failed";
  return input.unsentFrom < input.plan.requests.length || input.abandoned ? "interrupted" : "applied";
}

export function applyResultOf(input: ResultInput): ApplyResult {
  const {
    plan,
    applied,
    failure,
    abandoned,
    created,
    statsBefore: before,
    statsAfter: after,
    restore,
  } = input;
  return {
    status: statusOf(input),
    started_at: new Date(input.startedAt).toISOString(),
    finished_at: new Date(input.finishedAt).toISOString(),
    applied,
    ...(failure ? { failure } : {}),
    ...(abandoned ? { abandoned } : {}),
    not_sent: plan.requests.slice(input.unsentFrom).map((r) => ({
      seq: r.seq,
      phase: r.phase,
      method: r.method,
      path: resolvePathIfKnown(r.path, created),
      items: r.items,
      description: r.description,
    })),
    created: Object.fromEntries(created),
    summary: applySummaryOf(
      plan,
      applied,
      {
        reads: after.reads - before.reads,
        writes: after.writes - before.writes,
        retries: after.retries - before.retries,
        rateLimited: after.rateLimited - before.rateLimited,
      },
      input.finishedAt - input.startedAt,
    ),
    left_paused: input.leftPaused,
    ...(restore ? { restored: restore.restored } : {}),
    ...(restore?.error !== undefined ? { restore_error: restore.error } : {}),
  };
}
