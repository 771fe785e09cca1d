/**
 * What an apply did, as plain data: made by apply/, rendered by render/ (which never imports
 * apply: ARCHITECTURE.md#layers-and-their-arrows). No secret: paths, ids, statuses, API messages.
 */
import type { SourceRef } from "./desired.js";

export type ApplyStatus = "applied" | "failed" | "interrupted";

/** How reports and progress events name a request of the plan. */
export interface PlannedRequestRef {
  seq: number;
  phase: number;
  method: string;
  path: string;
  items: number;
  description: string;
}

/** One planned request as the apply sent it: placeholders replaced by real campaign ids. */
export interface ApplyRequestRecord extends PlannedRequestRef {
  /** HTTP status of the final answer, or what happened instead. */
  status: number | "outcome-unknown" | "network-error" | "timeout" | "abandoned" | "error";
  duration_ms: number;
  /** HTTP attempts this request took (retries after 429, 5xx or network errors included). */
  attempts: number;
  /** Set when the outcome of a POST was learned by listing campaigns by name. */
  recovered?: "created" | "retried";
  /** Why the answer to an accepted (2xx) request could not be read: the objects were read back instead. */
  unreadable_answer?: string;
  /** New campaign ids learnt by listing campaigns by name (`recovered: "created"`). */
  learnt_ids?: string[];
}

/** A member an accepted write did not take as sent (an inconsistent result): sent and shown. */
export interface InconsistentMember {
  /** `campaign 5001`, `insertion order 1001`, `creative 9001`, `new campaign "Harbour" (5010)`. */
  object: string;
  /** As sent (a dialect's name where it places the member). */
  member: string;
  sent: unknown;
  /** What the DSP shows; absent when its answer leaves the member out. */
  answered?: unknown;
  /** The gap decision or dialect key that may explain it. */
  explain: string;
}

/** A field the API refused (422 `data`), traced back to the config that asked for it. */
export interface FieldFailure {
  /** As the API named it, e.g. `campaigns[3].cpm`. */
  field: string;
  messages: string[];
  /** Batch item index, when the field names one. */
  item?: number;
  /** Plan changes carried by that item (or by the whole request). */
  change_ids: string[];
  /** Object addresses of those changes, e.g. `campaign.1001/Holiday airports`. */
  addresses: string[];
  /** Where the user wrote the refused values. */
  sources: SourceRef[];
}

export interface ApplyFailure {
  request: ApplyRequestRecord;
  /** Stable error code of the failure (e.g. `API_ERROR`, `OUTCOME_UNKNOWN`). */
  code: string;
  /** The API's message (or the client's), never a secret. */
  message: string;
  http_status?: number;
  fields: FieldFailure[];
  /** The DSP accepted it (2xx): applied, differently or with a result unknown, never "not applied". */
  landed?: true;
  /** `APPLY_INCONSISTENT_RESULT`: each member the DSP did not take as sent. */
  inconsistent?: InconsistentMember[];
}

/** A request of the plan that was never sent. */
export type UnsentRequest = PlannedRequestRef;

export interface ApplySummary {
  /** Changes fully applied, per change kind (`update_campaign`: 3, ...). */
  actions: Record<string, number>;
  /** After a stop: changes only some of whose requests landed, per kind. Absent when none. */
  partly_applied?: Record<string, number>;
  /** Requests of the plan applied, of the plan's total. */
  planned_requests: number;
  applied_requests: number;
  /** HTTP requests sent, retries included (`doohctl apply` counts the plan's reads and re-reads too). */
  write_requests: number;
  read_requests: number;
  retries: number;
  rate_limited: number;
  elapsed_ms: number;
}

/** An active campaign this apply paused for a targeting change and, stopped, did not reactivate. */
export interface LeftPausedCampaign {
  /** The `replace_targetings` change that paused it. */
  change_id: string;
  address: string;
  insertion_order_id: string;
  campaign_id: string;
  name: string;
  /**
   * The DSP answered the pause; false when sent without a confirmed answer (it may never have been
   * paused). Either way the recovery record holds it, and reactivates it only if inactive.
   */
  pause_confirmed: boolean;
}

export interface ApplyResult {
  status: ApplyStatus;
  started_at: string;
  finished_at: string;
  applied: ApplyRequestRecord[];
  failure?: ApplyFailure;
  /** The request in flight when an interruption arrived, abandoned before its answer. */
  abandoned?: ApplyRequestRecord;
  not_sent: UnsentRequest[];
  /** Campaigns created by this apply: create change id -> new campaign id. */
  created: Record<string, string>;
  summary: ApplySummary;
  /** Campaigns paused by this apply and left paused (always set by applyPlan; [] when none). */
  left_paused?: LeftPausedCampaign[];
  /** After a stop: campaigns this apply had paused that are active again. */
  restored?: string[];
  /** Why restoring delivery stopped short; `left_paused` names what is still dark. */
  restore_error?: string;
  /** The first error writing the `--log` journal, which ends there; this result is complete. */
  journal_error?: string;
}
