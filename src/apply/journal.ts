/**
 * `--log FILE`: the apply in JSON Lines, each written synchronously on an append fd, so a kill
 * leaves a true record of every answer. Paths, ids and statuses: never a body, a cookie or a password.
 */
import { closeSync, openSync, writeSync } from "node:fs";

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
