/** What an apply reports as it runs, to progress and the journal: apply/ itself writes nothing out. */
import type { ApiEvent } from "../api/types.js";
import type {
  ApplyFailure,
  ApplyRequestRecord,
  ApplyResult,
  PlannedRequestRef,
} from "../model/apply-report.js";

export type ApplyEvent =
  | { type: "start"; total: number; at: number }
  /** A planned request is about to go to the client (which may first wait for a slot). */
  | (PlannedRequestRef & {
      type: "request";
      /** Requests of the plan finished before this one. */
      done: number;
      total: number;
      at: number;
    })
  | {
      type: "applied";
      record: ApplyRequestRecord;
      /** Ids of the objects the request wrote (new campaign ids for a POST). */
      item_ids: string[];
      done: number;
      total: number;
    }
  /** A POST's outcome is unknown: the apply lists campaigns by name to learn what happened. */
  | { type: "check"; seq: number; message: string }
  | { type: "failed"; failure: ApplyFailure; item_ids: string[] }
  /** An interruption came while an attempt of the request was out: its answer is abandoned. */
  | { type: "abandoned"; record: ApplyRequestRecord; item_ids: string[] }
  /** An interruption came before any attempt of the request went out: it is not sent. */
  | { type: "unsent"; seq: number }
  /** After a stop: reactivating what this apply paused; every wait and write from here is its. */
  | { type: "restore"; campaigns: number }
  /** A client event (rate-limit waits with their `until`, retries, logins), passed through. */
  | { type: "api"; event: ApiEvent }
  /** The result; applyPlan returns it with `journal_error` once the journal heard this too. */
  | { type: "finish"; result: ApplyResult };

export type ApplyListener = (event: ApplyEvent) => void;
