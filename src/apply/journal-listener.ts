/** The `--log` journal listening to the apply's events (events.ts). */
import type { ApplyRequestRecord } from "../model/apply-report.js";
import type { Clock } from "../model/clock.js";
import type { Plan } from "../plan/types.js";
import type { ApplyListener } from "./events.js";
import type { ApplyJournal, JournalEntry } from "./journal.js";

export interface JournalListener {
  onEvent: ApplyListener;
  /** The first error writing the journal: nothing was written after it. */
  error(): string | undefined;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function requestEntry(
  record: ApplyRequestRecord,
  time: string,
  itemIds: string[],
  error?: string,
): JournalEntry {
  return {
    event: "request",
    time,
    phase: record.phase,
    seq: record.seq,
    method: record.method,
    path: record.path,
    item_ids: itemIds,
    status: record.status,
    duration_ms: record.duration_ms,
    attempts: record.attempts,
    ...(record.recovered ? { recovered: record.recovered } : {}),
    ...(error !== undefined ? { error } : {}),
  };
}

/**
 * Never throws: the first failed write is kept as `error()`, later entries dropped. A log error
 * must not fail an applied request or stop the apply half-way (leaving campaigns paused, I7).
 */
export function journalListener(
  journal: ApplyJournal,
  context: { plan: Plan; clock: Clock },
): JournalListener {
  const { plan, clock } = context;
  let error: string | undefined;
  /** The plan request the client's write attempts belong to: the last one started (0: the restore). */
  let seq = 0;
  const record = (entry: JournalEntry) => {
    if (error !== undefined) return;
    try {
      journal.record(entry);
    } catch (failure) {
      error = failure instanceof Error ? failure.message : String(failure);
    }
  };
  const onEvent: ApplyListener = (event) => {
    switch (event.type) {
      case "start":
        record({
          event: "start",
          time: iso(event.at),
          plan_created_at: plan.created_at,
          api_origin: plan.connection.api_origin,
          environment: plan.connection.environment,
          requests: event.total,
        });
        return;
      case "request":
        seq = event.seq;
        return;
      case "api": {
        const api = event.event;
        // An attempt that settled its request is the request's own line.
        if (api.type !== "response" || api.class !== "write") return;
        if (typeof api.status === "number" && api.status < 429) return;
        record({
          event: "attempt",
          time: iso(clock.now()),
          seq,
          method: api.method,
          path: api.path,
          status: api.status,
          attempt: api.attempt,
          duration_ms: api.durationMs,
        });
        return;
      }
      case "restore":
        // Its "check" line says so, with the campaigns' ids.
        return;
      case "check":
        // A check belongs to its request; the restore's (seq 0) starts writes no request owns.
        seq = event.seq;
        record({ event: "check", time: iso(clock.now()), seq: event.seq, message: event.message });
        return;
      case "applied":
        record(requestEntry(event.record, iso(clock.now()), event.item_ids));
        return;
      case "failed":
        seq = event.failure.request.seq;
        record(requestEntry(event.failure.request, iso(clock.now()), event.item_ids, event.failure.message));
        return;
      case "unsent":
        // Never sent: the end line counts it among `not_sent`.
        return;
      case "abandoned":
        seq = event.record.seq;
        record(requestEntry(event.record, iso(clock.now()), event.item_ids, "interrupted after it was sent"));
        return;
      case "finish": {
        const { result } = event;
        const paused = result.left_paused ?? [];
        record({
          event: "end",
          time: result.finished_at,
          status: result.status,
          applied: result.applied.length,
          not_sent: result.not_sent.length,
          ...(paused.length > 0
            ? { left_paused: paused.map((p) => ({ campaign_id: p.campaign_id, name: p.name })) }
            : {}),
        });
        return;
      }
    }
  };
  return { onEvent, error: () => error };
}
