/**
 * Running one request of the plan: its placeholders resolved, the objects it writes read
 * again (the write guard), the pauses it makes recorded before it is sent, then sent (a POST
 * through its outcome check) and its answer taken in. Its outcome is an event; a failure or
 * an interruption also stops the apply (I7).
 */
import type { ApiEvent, DspClient } from "../api/types.js";
import type { ApplyFailure, ApplyRequestRecord, PlannedRequestRef } from "../model/apply-report.js";
import type { Clock } from "../model/clock.js";
import { Placeholder } from "../plan/changes/placeholder.js";
import type { Change, Plan } from "../plan/types.js";
import type { ApplyListener } from "./events.js";
import { describeFailure, failedStatusOf } from "./failure.js";
import type { WriteGuard } from "./guard.js";
import type { PauseRecorder } from "./pause-record.js";
import { recordNewIds, resolvePath, resolvePlaceholders } from "./placeholders.js";
import { postNewCampaigns } from "./post-campaigns.js";

/** The current request's write attempts, as the client reports them (retries included). */
export class WriteAttempts {
  count = 0;
  /** Attempts that went out (their write slot granted), answered or not. */
  sent = 0;
  /** The status of the last write answer. */
  lastStatus: number | undefined;

  start(): void {
    this.count = 0;
    this.sent = 0;
    this.lastStatus = undefined;
  }

  observe(event: ApiEvent): void {
    if (event.type === "sent" && event.class === "write") this.sent++;
    if (event.type !== "response" || event.class !== "write") return;
    this.count++;
    if (typeof event.status === "number") this.lastStatus = event.status;
  }
}

/** What the requests of one apply share. */
export interface ApplyRun {
  plan: Plan;
  client: DspClient;
  clock: Clock;
  signal: AbortSignal | undefined;
  emit: ApplyListener;
  guard: WriteGuard;
  pauses: PauseRecorder;
  attempts: WriteAttempts;
  changesById: ReadonlyMap<string, Change>;
  /** How long an unknown POST outcome is left to settle before the check by name. */
  creationSettleMs: number;
  /** Create change id -> new campaign id, filled in as campaigns are created. */
  created: Map<string, string>;
  applied: ApplyRequestRecord[];
  /** Requests handed to the client: they may have reached the DSP even without an answer. */
  dispatched: Set<number>;
}

/**
 * How a request stopped the apply: it failed, or a signal came while it was out (abandoned:
 * it may have reached the DSP) or before any attempt of it went out (`unsent`: it did not).
 */
export type RequestStop =
  | { failure: ApplyFailure }
  | { abandoned: ApplyRequestRecord }
  | { unsent: PlannedRequestRef };

/** Item ids a request wrote: `id` of each body item, or the campaign id of a targetings PUT. */
function itemIdsOf(path: string, body: unknown, createdIds: readonly string[]): string[] {
  if (createdIds.length > 0) return [...createdIds];
  const lists = body !== null && typeof body === "object" ? Object.values(body) : [];
  const list = lists.find(Array.isArray) as Array<{ id?: unknown }> | undefined;
  if (list && !path.endsWith("/targetings")) return list.map((item) => String(item?.id));
  const match = /\/campaigns\/([^/]+)\/targetings$/.exec(path);
  return match?.[1] !== undefined ? [match[1]] : [];
}

/** Runs the plan's request at `index`: applied (in `run.applied`), or the stop it caused. */
export async function runRequest(run: ApplyRun, index: number): Promise<RequestStop | undefined> {
  const { plan, client, clock, signal, emit, guard, created } = run;
  const planned = plan.requests[index]!;
  const total = plan.requests.length;
  const sentAt = clock.now();
  run.attempts.start();
  let path = planned.path;
  let body = planned.body;
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
    attempts: run.attempts.count,
    ...(recovered ? { recovered } : {}),
  });
  try {
    if (created.size > 0 || Placeholder.within(path)) {
      path = resolvePath(planned.path, created);
      body = resolvePlaceholders(planned.body, created);
    }
    emit({ type: "request", ...sent(), done: index, total, at: sentAt });
    const request = { method: planned.method, path, body };
    await guard.check(request, signal ? { signal } : {});
    run.pauses.pausing(request);
    run.dispatched.add(planned.seq);
    if (planned.method === "POST") {
      const outcome = await postNewCampaigns({
        client,
        request,
        items: planned.items,
        signal,
        clock,
        settleMs: run.creationSettleMs,
        onCheck: (message) => emit({ type: "check", seq: planned.seq, message }),
        onSettle: (until) =>
          emit({
            type: "api",
            event: { type: "wait", class: "write", reason: "backoff", until, waitMs: until - clock.now() },
          }),
      });
      createdIds = outcome.ids;
      recovered = outcome.recovered;
      recordNewIds(planned, outcome.ids, created, run.changesById);
      guard.record(request, { campaigns: outcome.campaigns });
    } else {
      const sendOptions = signal ? { signal, items: planned.items } : { items: planned.items };
      const answer = await client.send(request, sendOptions);
      guard.record(request, answer);
      run.pauses.reactivated(request, answer);
    }
    // A POST whose lost answer was found created by listing (G3) succeeded: its last write
    // answer (a 500, or none) is not its outcome.
    const done = record(recovered === "created" ? 200 : (run.attempts.lastStatus ?? 200));
    run.applied.push(done);
    emit({
      type: "applied",
      record: done,
      item_ids: itemIdsOf(done.path, body, createdIds),
      done: index + 1,
      total,
    });
    return undefined;
  } catch (error) {
    if (signal?.aborted && run.attempts.sent === 0) {
      // Stopped while it waited for its write slot (or re-read what it writes): never sent.
      emit({ type: "unsent", seq: planned.seq });
      return { unsent: sent() };
    }
    if (signal?.aborted) {
      const abandoned = record("abandoned");
      emit({ type: "abandoned", record: abandoned, item_ids: itemIdsOf(abandoned.path, body, createdIds) });
      return { abandoned };
    }
    const failure = describeFailure(planned, record(failedStatusOf(error)), error, run.changesById);
    emit({ type: "failed", failure, item_ids: itemIdsOf(failure.request.path, body, createdIds) });
    return { failure };
  }
}
