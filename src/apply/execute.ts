/**
 * Executes a plan's requests, in its order, and nothing else (ARCHITECTURE.md#apply-order-and-invariants:
 * the plan keeps I1 to I5, the client's pacing the window). The first failure or an
 * interruption stops it (I7), delivery is restored, and the result says what happened.
 */
import type { ClientStats, DspClient } from "../api/types.js";
import type { ApplyFailure, ApplyRequestRecord, ApplyResult } from "../model/apply-report.js";
import { type Clock, systemClock } from "../model/clock.js";
import type { Plan } from "../plan/types.js";
import type { ApplyEvent, ApplyListener } from "./events.js";
import { WriteGuard } from "./guard.js";
import type { ApplyJournal } from "./journal.js";
import { journalListener } from "./journal-listener.js";
import { leftPaused } from "./left-paused.js";
import { PauseRecorder } from "./pause-record.js";
import { type RecoveryPort, type RestoreOutcome, restoreDelivery } from "./restore.js";
import { applyResultOf } from "./result.js";
import { type ApplyRun, runRequest, WriteAttempts } from "./run-request.js";

export interface ApplyOptions {
  plan: Plan;
  client: DspClient;
  /** Aborting abandons the request in flight, starts nothing more, and reactivates what this apply paused. */
  signal?: AbortSignal;
  /** Aborting it gives up restoring delivery too; the record keeps the truth. The CLI never does: see cli/commands/apply-interrupt.ts. */
  restoreSignal?: AbortSignal;
  recovery?: RecoveryPort;
  onEvent?: ApplyListener;
  /** Listens to the events before `onEvent`; its first write error is the result's `journal_error`. */
  journal?: ApplyJournal;
  /** For timestamps, durations and the settle wait below. @default systemClock */
  clock?: Clock;
  /**
   * After a POST /campaigns with an unknown outcome, the wait before listing by name: a slow server
   * gets this long to commit, so a check too early cannot create them twice. @default 60_000
   */
  creationSettleMs?: number;
  /** The client's counts to start from: the CLI's, from before the plan's reads, count the whole run. */
  countFrom?: ClientStats;
}

const DEFAULT_CREATION_SETTLE_MS = 60_000;

export async function applyPlan(options: ApplyOptions): Promise<ApplyResult> {
  const { plan, client, signal } = options;
  const clock = options.clock ?? systemClock;
  const journal = options.journal && journalListener(options.journal, { plan, clock });
  const listeners = [journal?.onEvent, options.onEvent].filter((l) => l !== undefined);
  const emit = (event: ApplyEvent) => {
    for (const listener of listeners) listener(event);
  };
  const total = plan.requests.length;
  const run: ApplyRun = {
    plan,
    client,
    clock,
    signal,
    emit,
    guard: new WriteGuard(plan, client),
    pauses: new PauseRecorder(plan, options.recovery, clock),
    attempts: new WriteAttempts(),
    changesById: new Map(plan.changes.map((c) => [c.id, c] as const)),
    creationSettleMs: options.creationSettleMs ?? DEFAULT_CREATION_SETTLE_MS,
    created: new Map(),
    applied: [],
    dispatched: new Set(),
  };
  const before = options.countFrom ?? client.stats();
  const startedAt = clock.now();
  let failure: ApplyFailure | undefined;
  let abandoned: ApplyRequestRecord | undefined;

  const unsubscribe = client.on((event) => {
    run.attempts.observe(event);
    emit({ type: "api", event });
  });
  emit({ type: "start", total, at: startedAt });

  let index = 0;
  try {
    for (; index < total && !signal?.aborted; index++) {
      const stop = await runRequest(run, index);
      if (stop === undefined) continue;
      if ("unsent" in stop) break; // it is the first of `not_sent`
      if ("failure" in stop) failure = stop.failure;
      else abandoned = stop.abandoned;
      index++; // the request that stopped the apply was sent: it is not among `not_sent`
      break;
    }
  } catch (error) {
    unsubscribe();
    throw error;
  }

  const appliedSeqs = new Set(run.applied.map((r) => r.seq));
  let paused = leftPaused(plan, appliedSeqs, run.dispatched);
  let restore: RestoreOutcome | undefined;
  if (paused.length > 0) {
    restore = await restoreDelivery({
      client,
      campaignIds: paused.map((p) => p.campaign_id),
      signal: options.restoreSignal,
      recovery: options.recovery,
      emit,
    });
    const restored = new Set(restore.restored);
    paused = paused.filter((p) => !restored.has(p.campaign_id));
  }
  unsubscribe();
  const result = applyResultOf({
    plan,
    applied: run.applied,
    failure,
    abandoned,
    unsentFrom: index,
    created: run.created,
    statsBefore: before,
    statsAfter: client.stats(),
    startedAt,
    finishedAt: clock.now(),
    leftPaused: paused,
    restore,
  });
  emit({ type: "finish", result });
  // The journal wrote its last line on "finish": only now is its error known.
  const journalError = journal?.error();
  return journalError === undefined ? result : { ...result, journal_error: journalError };
}
