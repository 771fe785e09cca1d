/**
 * Executes a plan: its requests, in its order, through the client, and nothing else
 * (design.md, Apply order and invariants). The order and batching that keep I1 to I5 are
 * the plan's; the client's pacing keeps the write window, so nothing here sleeps. The first
 * failure or an interruption stops the run (I7) and the result says what was applied, what
 * failed and why, and what was not sent.
 */
import { ApiError, NetworkError, OutcomeUnknownError, TimeoutError } from "../api/errors.js";
import type { DspClient } from "../api/types.js";
import type {
  ApplyFailure,
  ApplyRequestRecord,
  ApplyResult,
  ApplyStatus,
  PlannedRequestRef,
} from "../model/apply-report.js";
import { type Clock, systemClock } from "../model/clock.js";
import { activeItems, pauseSpans } from "../plan/pauses.js";
import { Placeholder } from "../plan/placeholder.js";
import type { Change, Plan, PlannedRequest } from "../plan/types.js";
import type { ApplyEvent } from "./events.js";
import { traceFieldErrors } from "./failure.js";
import { WriteGuard } from "./guard.js";
import { type ApplyJournal, guardJournal, itemIdsOf } from "./journal.js";
import { leftPaused } from "./left-paused.js";
import { resolvePath, resolvePathIfKnown, resolvePlaceholders } from "./placeholders.js";
import { postNewCampaigns } from "./post-campaigns.js";
import { type RecoveryPort, type RestoreOutcome, restoreDelivery } from "./restore.js";
import { applySummaryOf } from "./summary.js";

export interface ApplyOptions {
  plan: Plan;
  client: DspClient;
  /**
   * Aborting stops the run: the request in flight is abandoned, no other change is started,
   * and the campaigns this apply paused are reactivated before it returns.
   */
  signal?: AbortSignal;
  /** Aborting it gives up restoring delivery too (a second Ctrl-C); the record keeps the truth. */
  restoreSignal?: AbortSignal;
  recovery?: RecoveryPort;
  onEvent?: (event: ApplyEvent) => void;
  journal?: ApplyJournal;
  /** For timestamps, durations and the settle wait below. @default systemClock */
  clock?: Clock;
  /**
   * After a POST /campaigns whose outcome is unknown, how long to wait before listing the
   * campaigns by name to learn whether it created them: a slow server gets this long to
   * commit, so a check made too early cannot lead to creating them twice.
   * @default 60_000 (the client's default request timeout)
   */
  creationSettleMs?: number;
}

const DEFAULT_CREATION_SETTLE_MS = 60_000;

export class PlanIntegrityError extends Error {
  override readonly name = "PlanIntegrityError";
  readonly code = "APPLY_PLAN_INVALID";
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function statusOf(error: unknown): ApplyRequestRecord["status"] {
  if (error instanceof OutcomeUnknownError) return "outcome-unknown";
  if (error instanceof ApiError) return error.status;
  if (error instanceof TimeoutError) return "timeout";
  if (error instanceof NetworkError) return "network-error";
  return "error";
}

function describeFailure(
  planned: PlannedRequest,
  record: ApplyRequestRecord,
  error: unknown,
  changesById: ReadonlyMap<string, Change>,
): ApplyFailure {
  const code = (error as { code?: unknown })?.code;
  return {
    request: record,
    code: typeof code === "string" ? code : "APPLY_ERROR",
    // The API's own short text; its fields are listed one by one below.
    message:
      error instanceof ApiError ? error.apiMessage : error instanceof Error ? error.message : String(error),
    ...(error instanceof ApiError ? { http_status: error.status } : {}),
    fields: error instanceof ApiError ? traceFieldErrors(planned, error.data, changesById) : [],
  };
}

function recordNewIds(
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

export async function applyPlan(options: ApplyOptions): Promise<ApplyResult> {
  const { plan, client, signal } = options;
  const clock = options.clock ?? systemClock;
  let journalError: string | undefined;
  const journal =
    options.journal &&
    guardJournal(options.journal, (error) => {
      journalError = error instanceof Error ? error.message : String(error);
    });
  const emit = options.onEvent ?? (() => {});
  const changesById = new Map(plan.changes.map((c) => [c.id, c] as const));
  const created = new Map<string, string>();
  const applied: ApplyRequestRecord[] = [];
  const total = plan.requests.length;
  const before = client.stats();
  const startedAt = clock.now();
  let failure: ApplyFailure | undefined;
  let abandoned: ApplyRequestRecord | undefined;
  let attempts = 0;
  // The status of the current request's last write answer; reset per request.
  let lastStatus: number | undefined;
  let currentSeq = 0;

  const unsubscribe = client.on((event) => {
    if (event.type === "response" && event.class === "write") {
      attempts++;
      if (typeof event.status === "number") lastStatus = event.status;
      const settled = typeof event.status === "number" && event.status < 429;
      if (!settled) {
        journal?.record({
          event: "attempt",
          time: iso(clock.now()),
          seq: currentSeq,
          method: event.method,
          path: event.path,
          status: event.status,
          attempt: event.attempt,
          duration_ms: event.durationMs,
        });
      }
    }
    emit({ type: "api", event });
  });
  journal?.record({
    event: "start",
    time: iso(startedAt),
    plan_created_at: plan.created_at,
    api_origin: plan.connection.api_origin,
    environment: plan.connection.environment,
    requests: total,
  });
  emit({ type: "start", total, at: startedAt });

  const guard = new WriteGuard(plan, client);
  const spans = new Map(pauseSpans(plan).map((span) => [span.campaign_id, span]));
  /** Requests handed to the client: they may have reached the DSP even without an answer. */
  const dispatched = new Set<number>();
  const recordPauses = (request: { method: string; path: string; body: unknown }) => {
    const pausing = [...activeItems(request)].flatMap(([id, active]) => {
      const span = spans.get(id);
      return !active && span ? [span] : [];
    });
    if (pausing.length === 0) return;
    options.recovery?.pausing(
      pausing.map((span) => ({
        campaign_id: span.campaign_id,
        insertion_order_id: span.insertion_order_id,
        name: span.name,
        paused_at: iso(clock.now()),
      })),
    );
  };
  const confirmReactivations = (request: { method: string; path: string; body: unknown }) => {
    const ids = [...activeItems(request)].filter(([, active]) => active).map(([id]) => id);
    if (ids.length > 0) options.recovery?.reactivated(ids);
  };

  let index = 0;
  try {
    for (; index < total && !signal?.aborted; index++) {
      const planned = plan.requests[index]!;
      const sentAt = clock.now();
      attempts = 0;
      lastStatus = undefined;
      currentSeq = planned.seq;
      let path = planned.path;
      let createdIds: string[] = [];
      let recovered: ApplyRequestRecord["recovered"];
      // The planned request as sent: `path` once its placeholders are resolved.
      const sent = (): PlannedRequestRef => ({
        seq: planned.seq,
        phase: planned.phase,
        method: planned.method,
        path,
        items: planned.items,
        description: planned.description,
      });
      const record = (status: ApplyRequestRecord["status"]): ApplyRequestRecord => ({
        ...sent(),
        status,
        duration_ms: clock.now() - sentAt,
        attempts,
        ...(recovered ? { recovered } : {}),
      });
      const journalRecord = (r: ApplyRequestRecord, body: unknown, error?: string) =>
        journal?.record({
          event: "request",
          time: iso(clock.now()),
          phase: r.phase,
          seq: r.seq,
          method: r.method,
          path: r.path,
          item_ids: itemIdsOf(r.path, body, createdIds),
          status: r.status,
          duration_ms: r.duration_ms,
          attempts: r.attempts,
          ...(r.recovered ? { recovered: r.recovered } : {}),
          ...(error !== undefined ? { error } : {}),
        });
      let body = planned.body;
      try {
        if (created.size > 0 || Placeholder.within(path)) {
          path = resolvePath(planned.path, created);
          body = resolvePlaceholders(planned.body, created);
        }
        emit({
          type: "request",
          ...sent(),
          done: index,
          total,
          at: sentAt,
        });
        const request = { method: planned.method, path, body };
        const sendOptions = signal ? { signal, items: planned.items } : { items: planned.items };
        await guard.check(request, signal ? { signal } : {});
        recordPauses(request);
        dispatched.add(planned.seq);
        if (planned.method === "POST") {
          const outcome = await postNewCampaigns({
            client,
            request,
            items: planned.items,
            signal,
            clock,
            settleMs: options.creationSettleMs ?? DEFAULT_CREATION_SETTLE_MS,
            onCheck: (message) => {
              journal?.record({ event: "check", time: iso(clock.now()), seq: planned.seq, message });
              emit({ type: "check", seq: planned.seq, message });
            },
            onSettle: (until) =>
              emit({
                type: "api",
                event: {
                  type: "wait",
                  class: "write",
                  reason: "backoff",
                  until,
                  waitMs: until - clock.now(),
                },
              }),
          });
          createdIds = outcome.ids;
          recovered = outcome.recovered;
          recordNewIds(planned, outcome.ids, created, changesById);
          guard.record(request, { campaigns: outcome.campaigns });
        } else {
          guard.record(request, await client.send(request, sendOptions));
          confirmReactivations(request);
        }
        // A POST whose lost answer was found created by listing (G3) succeeded: its last
        // write answer (a 500, or none) is not its outcome.
        const done = record(recovered === "created" ? 200 : (lastStatus ?? 200));
        applied.push(done);
        journalRecord(done, body);
        emit({ type: "applied", record: done, done: index + 1, total });
      } catch (error) {
        if (signal?.aborted) {
          abandoned = record("abandoned");
          journalRecord(abandoned, body, "interrupted while waiting or in flight");
        } else {
          failure = describeFailure(planned, record(statusOf(error)), error, changesById);
          journalRecord(failure.request, body, failure.message);
          emit({ type: "failed", failure });
        }
        index++;
        break;
      }
    }
  } catch (error) {
    unsubscribe();
    throw error;
  }

  const status: ApplyStatus = failure ? "failed" : index < total || abandoned ? "interrupted" : "applied";
  const appliedSeqs = new Set(applied.map((r) => r.seq));
  let paused = leftPaused(plan, appliedSeqs, dispatched);
  let restore: RestoreOutcome | undefined;
  if (paused.length > 0) {
    restore = await restoreDelivery({
      client,
      campaignIds: paused.map((p) => p.campaign_id),
      signal: options.restoreSignal,
      recovery: options.recovery,
      emit,
      journal: (message) => journal?.record({ event: "check", time: iso(clock.now()), seq: 0, message }),
    });
    const restored = new Set(restore.restored);
    paused = paused.filter((p) => !restored.has(p.campaign_id));
  }
  unsubscribe();
  const after = client.stats();
  const finishedAt = clock.now();
  const result: ApplyResult = {
    status,
    started_at: iso(startedAt),
    finished_at: iso(finishedAt),
    applied,
    ...(failure ? { failure } : {}),
    ...(abandoned ? { abandoned } : {}),
    not_sent: plan.requests.slice(index).map((r) => ({
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
      finishedAt - startedAt,
    ),
    left_paused: paused,
    ...(restore ? { restored: restore.restored } : {}),
    ...(restore?.error !== undefined ? { restore_error: restore.error } : {}),
  };
  journal?.record({
    event: "end",
    time: iso(finishedAt),
    status,
    applied: applied.length,
    not_sent: result.not_sent.length,
    ...(paused.length > 0
      ? { left_paused: paused.map((p) => ({ campaign_id: p.campaign_id, name: p.name })) }
      : {}),
  });
  if (journalError !== undefined) result.journal_error = journalError;
  emit({ type: "finish", result });
  return result;
}
