/**
 * One request of the plan: placeholders resolved, then, once it holds its write slot, the write
 * guard's look and its pauses recorded right before it goes; its answer taken in. A failure or an
 * interruption stops the apply (I7).
 */
import { unreadableAnswer } from "../api/errors.js";
import type { ApiEvent, ApiRequest, BeforeSend, DspClient } from "../api/types.js";
import type { ApplyFailure, ApplyRequestRecord, PlannedRequestRef } from "../model/apply-report.js";
import type { Clock } from "../model/clock.js";
import { Placeholder } from "../plan/changes/placeholder.js";
import type { Change, Plan } from "../plan/types.js";
import { checkAnswer, differences, landed, ResultUnknownError, readBack } from "./answer-check.js";
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

/** How a request stopped the apply: failed, abandoned in flight (may have landed), or never sent. */
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

/**
 * Sends a PATCH or PUT. An accepted write's answer that cannot be read, or leaves out an object,
 * says nothing: the objects are read back, and if that fails it is applied, result unknown.
 */
async function sendWrite(
  run: ApplyRun,
  request: ApiRequest,
  items: number,
  seq: number,
  beforeSend: BeforeSend,
): Promise<{ answer: unknown; unreadable?: string }> {
  const { client, signal } = run;
  const options = signal ? { signal } : {};
  let unreadable: string | undefined;
  let answer: unknown;
  try {
    answer = await client.send(request, { ...options, items, beforeSend });
    const { absent } = differences(request, answer, client.dialect);
    if (absent.length === 0) return { answer };
    unreadable = `it does not hold ${absent.join(", ")}`;
  } catch (error) {
    unreadable = unreadableAnswer(error);
    if (unreadable === undefined) throw error;
  }
  run.emit({
    type: "check",
    seq,
    message: `${request.method} ${request.path} was accepted but its answer cannot be read (${unreadable}); reading the objects back`,
  });
  const unknown = (why: string, cause?: unknown) =>
    new ResultUnknownError(
      `${request.method} ${request.path} was accepted but its answer cannot be read (${unreadable}), and ${why}. It is applied, with its result unknown: run doohctl plan to see what the DSP holds now`,
      cause === undefined ? undefined : { cause },
    );
  let read: unknown;
  try {
    read = await readBack(client, request, options);
  } catch (error) {
    if (signal?.aborted) throw error;
    throw unknown(`reading the objects back failed: ${(error as Error).message}`, error);
  }
  const { absent } = differences(request, read, client.dialect);
  if (absent.length > 0) throw unknown(`read back, the DSP holds no ${absent.join(", ")}`);
  return { answer: read, unreadable };
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
  let unreadable: string | undefined;
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
    ...(unreadable !== undefined ? { unreadable_answer: unreadable } : {}),
    ...(recovered === "created" ? { learnt_ids: [...createdIds] } : {}),
  });
  try {
    if (created.size > 0 || Placeholder.within(path)) {
      path = resolvePath(planned.path, created);
      body = resolvePlaceholders(planned.body, created);
    }
    emit({ type: "request", ...sent(), done: index, total, at: sentAt });
    const request = { method: planned.method, path, body };
    // Once the write holds its slot, before each attempt: the guard's look, then (once) the
    // pauses it makes recorded; nothing waits between them and the send (api/types.ts).
    const beforeSend: BeforeSend = async ({ mayHaveLanded }) => {
      await guard.check(request, signal ? { signal } : {}, mayHaveLanded);
      if (run.dispatched.has(planned.seq)) return;
      run.pauses.pausing(request);
      run.dispatched.add(planned.seq);
    };
    if (planned.method === "POST") {
      const outcome = await postNewCampaigns({
        client,
        request,
        items: planned.items,
        beforeSend,
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
      unreadable = outcome.unreadable;
      recordNewIds(planned, outcome.ids, created, run.changesById);
      const answer = { campaigns: outcome.campaigns };
      guard.record(request, answer);
      checkAnswer(request, answer, client.dialect);
    } else {
      const sent = await sendWrite(run, request, planned.items, planned.seq, beforeSend);
      unreadable = sent.unreadable;
      guard.record(request, sent.answer);
      run.pauses.reactivated(request, sent.answer);
      checkAnswer(request, sent.answer, client.dialect);
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
    // A write the DSP accepted is applied (differently, or with a result unknown): its status is the DSP's.
    const status = landed(error) ? (run.attempts.lastStatus ?? 200) : failedStatusOf(error);
    const failure = describeFailure(planned, record(status), error, run.changesById);
    emit({ type: "failed", failure, item_ids: itemIdsOf(failure.request.path, body, createdIds) });
    return { failure };
  }
}
