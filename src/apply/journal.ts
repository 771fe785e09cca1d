/**
 * `--log FILE`: an append-only JSON Lines record of the apply. Each line is written with a
 * synchronous write on an fd opened for append, so a crash or a kill leaves a true record of
 * every request that got an answer. Lines hold paths, ids and statuses: never a body, a
 * cookie or a password. The journal is a listener of the apply's events (events.ts).
 */
import { closeSync, openSync, writeSync } from "node:fs";
import type { ApplyRequestRecord } from "../model/apply-report.js";
import type { Clock } from "../model/clock.js";
import type { Plan } from "../plan/types.js";
import type { ApplyListener } from "./events.js";

export type JournalEntry =
  | {
      event: "start";
      time: string;
      plan_created_at: string;
      api_origin: string;
      environment: string;
      requests: number;
    }
  | {
      event: "request";
      time: string;
      phase: number;
      seq: number;
      method: string;
      path: string;
      /** Ids of the objects the request wrote (new campaign ids for a POST). */
      item_ids: string[];
      status: number | string;
      duration_ms: number;
      attempts: number;
      recovered?: string;
      error?: string;
    }
  /** A write attempt that did not settle the request (429, 5xx, no answer): retried or failed. */
  | {
      event: "attempt";
      time: string;
      seq: number;
      method: string;
      path: string;
      status: number | string;
      attempt: number;
      duration_ms: number;
    }
  | { event: "check"; time: string; seq: number; message: string }
  | {
      event: "end";
      time: string;
      status: string;
      applied: number;
      not_sent: number;
      /** Campaigns this apply paused for a targeting change and did not reactivate. */
      left_paused?: Array<{ campaign_id: string; name: string }>;
    };

export interface ApplyJournal {
  record(entry: JournalEntry): void;
  close(): void;
}

export class JournalError extends Error {
  override readonly name = "JournalError";
  readonly code = "APPLY_JOURNAL";
}

/** Opens (creating if needed) a journal file for append. */
export function openFileJournal(path: string): ApplyJournal {
  let fd: number;
  try {
    fd = openSync(path, "a", 0o644);
  } catch (error) {
    throw new JournalError(
      `cannot open the apply log ${path}: ${(error as Error).message}; choose a writable path for --log`,
      { cause: error },
    );
  }
  let open = true;
  return {
    record(entry) {
      if (open) writeSync(fd, `${JSON.stringify(entry)}\n`);
    },
    close() {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

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
 * The journal listening to an apply. It never throws: the first failed write (disk full, file
 * gone) is kept as `error()` and every later entry is dropped. A log error must never turn an
 * applied request into a failed one, nor stop the apply half-way (which could leave campaigns
 * paused, I7); the apply result stays the complete record and carries the error.
 */
export function journalListener(
  journal: ApplyJournal,
  context: { plan: Plan; clock: Clock },
): JournalListener {
  const { plan, clock } = context;
  let error: string | undefined;
  /** The plan request the client's write attempts belong to: the last one started. */
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
      case "check":
        record({ event: "check", time: iso(clock.now()), seq: event.seq, message: event.message });
        return;
      case "applied":
        record(requestEntry(event.record, iso(clock.now()), event.item_ids));
        return;
      case "failed":
        seq = event.failure.request.seq;
        record(requestEntry(event.failure.request, iso(clock.now()), event.item_ids, event.failure.message));
        return;
      case "abandoned":
        seq = event.record.seq;
        record(
          requestEntry(
            event.record,
            iso(clock.now()),
            event.item_ids,
            "interrupted while waiting or in flight",
          ),
        );
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
