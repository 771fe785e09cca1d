/**
 * The Plan: plain, serializable data that `apply --plan` round-trips (ARCHITECTURE.md#plan). Bump
 * PLAN_FORMAT_VERSION on any incompatible change and keep schemas/plan.schema.json in step.
 */
import type { SourceRef } from "../model/desired.js";
import type { RateLimits } from "../model/limits.js";
import type { Money } from "../model/money.js";
import type { RecordedPause, RecordIssue } from "../model/recovery.js";
import type { TargetingOptionSet } from "../model/targeting.js";
import type {
  Advertiser,
  Campaign,
  Creative,
  CreativeCategory,
  Environment,
  InsertionOrder,
} from "../model/wire.js";

export const PLAN_FORMAT_VERSION = 1;

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One managed field going from `before` (null when the object is new) to `after`. */
export interface FieldChange {
  field: string;
  before: JsonValue;
  after: JsonValue;
  /** Where the desired value was written, to map a 422 `campaigns[3].cpm` to `file:line`. */
  source?: SourceRef;
  /** For an opaque object (pacing, G2): the inner paths that differ, for display only. */
  details?: FieldDetail[];
}

/** One inner path of an object field, e.g. `pacing.strategy`: display only, never sent. */
export interface FieldDetail {
  path: string;
  before: JsonValue;
  after: JsonValue;
}

/** A campaign, live or about to be created (then `campaign_id` is absent). */
export interface CampaignRef {
  insertion_order_id: string;
  name: string;
  campaign_id?: string;
  /** For a new campaign: the id of its `create_campaign` change. */
  create_change_id?: string;
}

interface ChangeBase {
  /** Stable within a plan: `c1`, `c2`, ... in plan order. Requests name the changes they carry. */
  id: string;
  /** Human address: `insertion_order.1001`, `campaign.1001/Holiday airports`, `creative.9001`. */
  address: string;
  /** Where the user declared it; absent for changes the config implies (unmanaged policy). */
  source?: SourceRef;
}

export interface UpdateInsertionOrder extends ChangeBase {
  kind: "update_insertion_order";
  insertion_order_id: string;
  fields: FieldChange[];
}

export interface CreateCampaign extends ChangeBase {
  kind: "create_campaign";
  campaign: CampaignRef;
  /** Every field the new campaign gets, `before` null. */
  fields: FieldChange[];
}

export interface UpdateCampaign extends ChangeBase {
  kind: "update_campaign";
  campaign: CampaignRef;
  fields: FieldChange[];
}

/** `unmanaged_campaigns: deactivate`: a live campaign the config does not list. */
export interface DeactivateCampaign extends ChangeBase {
  kind: "deactivate_campaign";
  campaign: CampaignRef;
  reason: "unmanaged";
}

export interface ReplaceTargetings extends ChangeBase {
  kind: "replace_targetings";
  campaign: CampaignRef;
  before: TargetingOptionSet[];
  after: TargetingOptionSet[];
  added: TargetingOptionSet[];
  removed: TargetingOptionSet[];
  /** I1/G5: the campaign is active and a set is removed or changed, so apply pauses it. */
  pause: boolean;
}

export interface AssociateCreative extends ChangeBase {
  kind: "associate_creative";
  creative_id: string;
  campaign: CampaignRef;
}

export interface DissociateCreative extends ChangeBase {
  kind: "dissociate_creative";
  creative_id: string;
  campaign: CampaignRef;
}

export interface UpdateCreative extends ChangeBase {
  kind: "update_creative";
  creative_id: string;
  fields: FieldChange[];
}

/** Closed union: switches over `kind` are checked for exhaustiveness by the compiler. */
export type Change =
  | UpdateInsertionOrder
  | CreateCampaign
  | UpdateCampaign
  | DeactivateCampaign
  | ReplaceTargetings
  | AssociateCreative
  | DissociateCreative
  | UpdateCreative;

export type ChangeKind = Change["kind"];

/** ARCHITECTURE.md#apply-order-and-invariants. */
export const PHASES = {
  1: "widen insertion orders",
  2: "create campaigns (inactive)",
  3: "update and deactivate campaigns",
  4: "replace targetings",
  5: "creative associations and properties",
  6: "activate campaigns",
  7: "narrow insertion orders",
} as const;
export type Phase = keyof typeof PHASES;

export interface PlannedRequest {
  /** 1-based position in apply order. */
  seq: number;
  phase: Phase;
  method: "POST" | "PUT" | "PATCH";
  path: string;
  body: JsonValue;
  /** Items in the batch (1 for a single-object request). */
  items: number;
  /** The changes this request carries (or helps carry, like a pause for a targeting change). */
  change_ids: string[];
  /** Per batch item, the changes it carries: maps a 422 field `campaigns[3].cpm` back to config. */
  item_change_ids: string[][];
  /** One line for people: `PATCH 42 campaigns (3 deactivations for targeting changes)`. */
  description: string;
}

export type Severity = "error" | "warning" | "info";

/** An analyzer finding, with a stable code (e.g. `DOOH201`). Errors mean no plan can apply. */
export interface Finding {
  code: string;
  severity: Severity;
  message: string;
  address?: string;
  change_ids?: string[];
  source?: SourceRef;
}

export type ObjectKind = "insertion_order" | "campaign" | "targetings" | "creative";

/** What the plan saw of one live object; `apply --plan` re-reads it and compares. */
export interface Fingerprint {
  kind: ObjectKind;
  /** Object id (for targetings, the campaign id). */
  id: string;
  sha256: string;
  /** The compared fields as read, so a stale check can say which field changed. */
  snapshot: JsonValue;
}

export interface InsertionOrderDelta {
  insertion_order_id: string;
  /** Human lines, e.g. `budget +2,500.00 USD`, `cpm 12.00 -> 12.50 USD on 3 campaigns`. */
  lines: string[];
}

/** Campaigns paused for targeting changes (I1) and how long, estimated at the write window (I5). */
export interface PauseSummary {
  campaigns: number;
  mean_dark_ms: number;
  max_dark_ms: number;
  /** Writes `--max-pause` added to the fewest possible; 0 without it. */
  extra_writes: number;
  /** `--max-pause`, when given. */
  max_pause_ms?: number;
}

/** The maximum spend of one advertiser's campaigns (of the insertion orders read) in one currency. */
export interface SpendDelta {
  /** The campaigns' insertion order's advertiser (live). */
  advertiser_id: string;
  /** The advertiser's name, when the plan read it. */
  advertiser_name?: string;
  currency_code: string;
  /** Summed over the campaigns, active or not (spend.ts, G2; docs/plan.md, "Money"). */
  max_spend_before: Money;
  max_spend_after: Money;
  /** after - before; negative when the plan lowers it. */
  max_spend_change: Money;
  /** Spent by the row's campaigns (progress.spend); absent with `without_progress`, `spend_not_reported`. */
  spent?: Money;
  /** What they can still spend after the plan: max_spend_after - spent. Absent likewise. */
  remaining?: Money;
  /** Campaigns read without progress, counted at budget_impressions x cpm / 1000 (the upper bound). */
  without_progress?: string[];
  /** G15: campaigns whose spend in this currency the DSP does not report: counted at what is left. */
  spend_not_reported?: string[];
}

/** A campaign the plan creates or updates whose maximum spend changes, in one currency. */
export interface CampaignSpendDelta {
  insertion_order_id: string;
  name: string;
  /** Absent for a campaign the plan creates. */
  campaign_id?: string;
  /** Its insertion order's advertiser (live): the money table row it belongs under. */
  advertiser_id: string;
  currency_code: string;
  /** Same arithmetic as SpendDelta, for this campaign alone; zero for a new campaign. */
  max_spend_before: Money;
  max_spend_after: Money;
  /** G15: its spend in this currency is not reported by the DSP; the amounts leave it out. */
  spend_not_reported?: true;
}

/** An insertion order whose `budget_money` the plan changes: its own row of the money table. */
export interface BudgetMoneyDelta {
  insertion_order_id: string;
  insertion_order_name: string;
  contract_number: string | null;
  advertiser_id: string;
  advertiser_name?: string;
  budget_before: Money | null;
  budget_after: Money | null;
}

export interface PlanSummary {
  actions: Partial<Record<ChangeKind, number>>;
  write_requests: number;
  read_requests: number;
  /** When the last write may go at the write window as it stood at planning (window.ts). */
  estimated_apply_ms: number;
  write_window: string;
  /** Write slots other runs on this machine held at planning (pacing across runs); absent when none. */
  write_slots_in_use?: number;
  insertion_orders: InsertionOrderDelta[];
  /** Per advertiser and currency; absent in plans saved before doohctl showed spend. */
  spend?: SpendDelta[];
  /** Created or updated campaigns whose maximum spend changes; absent when none. */
  campaign_spend?: CampaignSpendDelta[];
  /** Insertion orders whose `budget_money` the plan changes; absent when none. */
  budget_money?: BudgetMoneyDelta[];
  /** With a `policy:`: the `--changed-since` revision it was compared with, and what loosened (DOOH907). */
  policy?: { compared_with?: string; loosened: string[] };
  /** Present when the plan pauses campaigns for targeting changes. */
  pauses?: PauseSummary;
}

export interface Plan {
  format_version: typeof PLAN_FORMAT_VERSION;
  tool_version: string;
  created_at: string;
  /** `connection.account` of the config, when it is one of several accounts (docs/safety.md). */
  account?: string;
  /** `rate_limits` lets `apply --plan` pace as planned; it refuses a `user` other than the plan's. */
  connection: { api_origin: string; environment: Environment; rate_limits?: string; user?: string };
  config_files: { path: string; sha256: string }[];
  /** `--target` ids the plan was narrowed to; empty when it covers the whole config. */
  targets: string[];
  /** `--max-pause` in ms, when given: `apply --plan` recomputes the same grouping. */
  max_pause_ms?: number;
  /** `--allow` policy codes: their denials are warnings in this plan. Absent when none. */
  allowed?: string[];
  /** The threshold flags the plan was made with; absent when it used the defaults. */
  thresholds?: PlanThresholds;
  /** Present when `--changed-since` narrowed the plan: what it covers, and what it did not refresh. */
  scope?: ChangedScope;
  fingerprints: Fingerprint[];
  changes: Change[];
  requests: PlannedRequest[];
  findings: Finding[];
  summary: PlanSummary;
}

/** `--changed-since REF`: the declared objects that differ from REF, all a plan reads (and G8's needs). */
export interface ChangedScope {
  /** REF as given on the command line. */
  since: string;
  /** The commit REF named when the plan was made. */
  commit: string;
  /** Insertion orders whose own fields or `unmanaged_campaigns` changed, or that were added. */
  insertion_orders: string[];
  /** Campaigns added (`added`) or changed, by identity within their insertion order. */
  campaigns: { insertion_order_id: string; name: string; added: boolean }[];
  /** Campaign blocks removed from an insertion order the config still manages. */
  removed_campaigns: { insertion_order_id: string; name: string; id?: string }[];
  /** Creatives of the `creatives:` list added or changed. */
  creatives: string[];
  /** Declared insertion orders, campaigns and creatives the plan did not compare with live state. */
  not_refreshed: number;
  /** Guardrail rules the change loosens against the config at REF (DOOH907); absent when none. */
  loosened_policy?: string[];
}

/** Live objects the planner compares against; read by `plan/read.ts` through the client. */
export interface LiveState {
  insertionOrders: InsertionOrder[];
  campaigns: Campaign[];
  /** Only campaigns whose config declares targetings were read. */
  targetings: Record<string, TargetingOptionSet[]>;
  creatives: Creative[];
  advertisers: Advertiser[];
  /** G6 rule 5: the existing categories a creative would gain; absent without `category_ids`. */
  creativeCategories?: CreativeCategory[];
  /** Read requests made to build this state. */
  readRequests: number;
}

/**
 * The threshold flags, in the saved plan's words, so that `apply --plan` makes the plan again
 * with the limits it was reviewed with (a policy increase rule without a `limit` takes them:
 * DOOH902, DOOH903).
 */
export interface PlanThresholds {
  /** DOOH401, in percent of the live value. @default 50 */
  budget_increase_percent?: number;
  /** @default 20 */
  cpm_increase_percent?: number;
  /** DOOH304: a budget cut in flight leaving fewer days than this at the current pace. @default 2 */
  min_budget_days?: number;
}

/** Everything `createPlan` needs besides desired and live state; it reads no clock itself. */
export interface PlanOptions {
  /** ISO time from the injected clock: the plan's `created_at` and the DOOH301 cut-off. */
  now: string;
  toolVersion: string;
  connection: { api_origin: string; environment: Environment; user?: string };
  /** `--target` ids: insertion orders, campaigns or creatives of the config. */
  targets?: readonly string[];
  /** `--changed-since`: plan only what changed since a git revision. */
  changed?: ChangedScope;
  /** Write slots other runs hold now (ms until each frees), for the apply estimate. */
  writeWindowBusyMs?: readonly number[];
  thresholds?: PlanThresholds;
  /** `--allow CODE`: policy codes (DOOH901..DOOH906) whose deny becomes a warning. */
  allowed?: readonly string[];
  /** For the apply-time estimate and pause lengths (the write window). */
  rateLimits: RateLimits;
  /** The recovery record: one still inactive and not declared `active: false` is reactivated (DOOH202). */
  recorded?: readonly RecordedPause[];
  /** Record files and entries not acted on: DOOH206 (error) when unreadable, else DOOH205. */
  recordIssues?: readonly RecordIssue[];
  /** `--max-pause`: no campaign is estimated dark longer than this, at the price of extra writes. */
  maxPauseMs?: number;
}
