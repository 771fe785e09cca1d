/**
 * `doohctl status` as data (docs/status.md): from campaigns read with progress (G2), their creatives
 * and the recovery record at an instant, each campaign's delivery, forecast, pacing, serving and
 * alerts, and a rollup per insertion order. Pure: the reads and the clock are the caller's.
 */
import { canServe as creativeCanServe } from "../model/creative-serving.js";
import { Money } from "../model/money.js";
import { Ratio } from "../model/ratio.js";
import type { RecordedPause } from "../model/recovery.js";
import { Time } from "../model/time.js";
import type { Campaign, Creative, InsertionOrder } from "../model/wire.js";
import { maximumSpendMoney, spendNotReportedIn } from "../plan/findings/spend.js";
import {
  type AlertInput,
  type AlertKind,
  alertsOf,
  type ExactThresholds,
  type StatusAlert,
  undeliveredMoney,
} from "./alerts.js";
import { type Forecast, forecast, forecastFigures } from "./forecast.js";
import { type InsertionOrderStatus, rollup } from "./rollup.js";

/** 3: figures rounded once (src/model/ratio.ts), `spend.pct` null and `not_reported` (G15). */
export const STATUS_FORMAT_VERSION = 3;

/** `--behind-threshold` default: a pace more than 10% short of what the remaining budget needs. */
export const DEFAULT_BEHIND_THRESHOLD_PCT = 10;
/** `--ended-short-threshold` default: a flight that ended more than 5% short of its budget. */
export const DEFAULT_ENDED_SHORT_PCT = 5;
/** `--grace-hours` default: a campaign a day into its flight should be delivering. */
export const DEFAULT_GRACE_HOURS = 24;

export type PacingVerdict =
  | "not started"
  | "on track"
  | "ahead"
  | "behind"
  | "budget delivered"
  | "paused"
  | "never activated"
  | "ended";

export interface CreativeProblem {
  creative_id: string;
  name: string;
  /** "processing", "processing failed", "archived", "audit denied by network 2: ...", ... */
  reason: string;
}

export interface CampaignStatus {
  id: string;
  name: string;
  insertion_order_id: string;
  active: boolean;
  /** The config says `active: false`: held back on purpose, so inactivity is no alert. */
  declared_inactive: boolean;
  start_time: string;
  end_time: string;
  /** Share of the flight behind us, 0 to 100. */
  flight_elapsed_pct: number;
  impressions: { delivered: number; budget: number; pct: number };
  /**
   * Exact amounts, rounded for people by text and Markdown. `amount` is `progress.spend` in the
   * DSP's currency; `budget` the maximum spend in the cpm's currency, the plan's figure
   * (src/plan/findings/spend.ts); `maximum` every currency's, `budget`'s first. `pct` is amount of
   * budget, null when their currencies differ (never converted). `not_reported` (G15): the cpm's
   * currency when the DSP reports spend in another: spent in it is unknown (never 0), and `budget`
   * is then only what is left to buy.
   */
  spend: { amount: string; budget: string; maximum: string[]; pct: number | null; not_reported?: string };
  pacing: { verdict: PacingVerdict } & Forecast;
  creatives: { total: number; can_serve: number; problems: CreativeProblem[] };
  /** An ended flight's shortfall at its cpm, shown when it does not alert (`active: false`, ended 7+ days). */
  undelivered?: { impressions: number; amount: string };
  /** Set when an apply paused the campaign and has not confirmed its reactivation. */
  paused_by_apply?: { apply_id: string; paused_at: string; apply_running: boolean };
  /** Why this campaign makes the exit code 2, the cause first; empty when it does not. */
  alerts: StatusAlert[];
}

export interface StatusThresholds {
  behind_pct: number;
  ended_short_pct: number;
  grace_hours: number;
}

export interface StatusReport {
  format_version: typeof STATUS_FORMAT_VERSION;
  generated_at: string;
  thresholds: StatusThresholds;
  /** "declared": the campaigns of the config; "all": every live campaign of its insertion orders. */
  scope: "declared" | "all";
  campaigns: CampaignStatus[];
  insertion_orders: InsertionOrderStatus[];
  summary: {
    campaigns: number;
    /** Campaigns with at least one alert. */
    alerting: number;
  } & Record<SummaryKey, number>;
}

/** The summary's count of each alert kind, in the report's order. */
const SUMMARY_OF = {
  behind: "behind",
  "budget exhausted": "budget_exhausted",
  "ended short": "ended_short",
  inactive: "not_delivering",
  "nothing delivered": "not_delivering",
  "no creative": "cannot_serve",
  "paused by apply": "paused_by_apply",
} as const satisfies Record<AlertKind, string>;

type SummaryKey = (typeof SUMMARY_OF)[AlertKind];

export interface StatusInput {
  campaigns: readonly Campaign[];
  creatives: readonly Creative[];
  recorded: readonly RecordedPause[];
  /** The declared insertion orders as read, for their `budget_money`; absent when not read. */
  insertionOrders?: readonly InsertionOrder[];
  /** Ids of the campaigns the config declares `active: false`. */
  declaredInactive?: ReadonlySet<string>;
  now: number;
  thresholds: StatusThresholds;
  scope: StatusReport["scope"];
}

export function buildStatusReport(input: StatusInput): StatusReport {
  const creativesOf = new Map<string, Creative[]>();
  for (const creative of input.creatives) {
    for (const id of creative.campaign_ids) {
      const list = creativesOf.get(id) ?? [];
      list.push(creative);
      creativesOf.set(id, list);
    }
  }
  const recorded = new Map(input.recorded.map((r) => [r.campaign_id, r]));
  const campaigns = input.campaigns.map((c) =>
    campaignStatus(c, creativesOf.get(c.id) ?? [], recorded.get(c.id), input),
  );
  const summary = {
    campaigns: campaigns.length,
    alerting: campaigns.filter((c) => c.alerts.length > 0).length,
    ...(Object.fromEntries(Object.values(SUMMARY_OF).map((key) => [key, 0])) as Record<SummaryKey, number>),
  };
  for (const c of campaigns) {
    for (const key of new Set(c.alerts.map((a) => SUMMARY_OF[a.kind]))) summary[key] += 1;
  }
  return {
    format_version: STATUS_FORMAT_VERSION,
    generated_at: Time.fromMillis(input.now),
    thresholds: input.thresholds,
    scope: input.scope,
    campaigns,
    insertion_orders: rollup(campaigns, input.insertionOrders),
    summary,
  };
}

function campaignStatus(
  campaign: Campaign,
  creatives: readonly Creative[],
  pause: RecordedPause | undefined,
  input: StatusInput,
): CampaignStatus {
  const now = input.now;
  const start = Time.toMillis(campaign.start_time);
  const end = Time.toMillis(campaign.end_time);
  const delivered = campaign.progress?.impressions_delivered ?? 0;
  const budget = campaign.budget_impressions;
  const canServe = creatives.filter(creativeCanServe).length; // one rule with plan (src/model/creative-serving.ts)
  const delivering = campaign.active && canServe > 0;
  const outlook = forecast({ start, end, now, delivered, budget, delivering });
  const declaredInactive = input.declaredInactive?.has(campaign.id) === true;
  const thresholds = exactThresholds(input.thresholds);
  const facts = {
    campaign,
    creatives,
    canServe,
    pause,
    declaredInactive,
    outlook,
    start,
    end,
    now,
    thresholds,
  };
  const verdict = verdictOf(facts);
  const alerts = alertsOf({ ...facts, verdict });
  const short = budget - delivered;
  const undelivered = { impressions: short, amount: Money.format(undeliveredMoney(campaign, short)) };
  const paused = pause && {
    apply_id: pause.apply_id,
    paused_at: pause.paused_at,
    apply_running: pause.owner_running,
  };
  return {
    id: campaign.id,
    name: campaign.name,
    insertion_order_id: campaign.insertion_order_id,
    active: campaign.active,
    declared_inactive: declaredInactive,
    start_time: campaign.start_time,
    end_time: campaign.end_time,
    // Rounded once in JSON (src/model/ratio.ts); the text and Markdown round that for people.
    flight_elapsed_pct:
      end > start
        ? Ratio.toJson(Ratio.of(Math.min(end - start, Math.max(0, now - start)) * 100, end - start))
        : 100,
    impressions: {
      delivered,
      budget,
      pct: budget > 0 ? Ratio.toJson(Ratio.of(BigInt(delivered) * 100n, budget)) : 0,
    },
    spend: spendOf(campaign, now),
    pacing: { verdict, ...forecastFigures(outlook) },
    creatives: {
      total: creatives.length,
      can_serve: canServe,
      problems: creatives.flatMap(creativeProblems),
    },
    ...(now >= end && short > 0 ? { undelivered } : {}),
    ...(paused && !campaign.active ? { paused_by_apply: paused } : {}),
    alerts,
  };
}

/** The thresholds as the decimals they were written as (src/model/ratio.ts, `fromDecimal`). */
function exactThresholds(t: StatusThresholds): ExactThresholds {
  return {
    behind: Ratio.fromDecimal(t.behind_pct),
    endedShort: Ratio.fromDecimal(t.ended_short_pct),
    graceHours: Ratio.fromDecimal(t.grace_hours),
  };
}

/**
 * Spend against the plan's maximum spend (src/plan/findings/spend.ts). G15: spend reported in another
 * currency than the cpm's leaves the cpm's unknown: named (`not_reported`), never 0, never compared.
 */
function spendOf(campaign: Campaign, now: number): CampaignStatus["spend"] {
  const delivered = campaign.progress?.impressions_delivered ?? 0;
  const cpm = Money.fromWire(campaign.cpm);
  const spend = campaign.progress ? Money.fromWire(campaign.progress.spend) : Money.zero(cpm.currency_code);
  const { maximum } = maximumSpendMoney(
    { impressions: campaign.budget_impressions, cpm, end_time: campaign.end_time },
    campaign.progress ? { delivered, spent: spend } : undefined,
    now,
  );
  const budget = maximum.find((m) => m.currency_code === cpm.currency_code) ?? Money.zero(cpm.currency_code);
  const notReported = spendNotReportedIn(campaign);
  return {
    amount: Money.format(spend),
    budget: Money.format(budget),
    maximum: [budget, ...maximum.filter((m) => m !== budget)].map(Money.format),
    pct: spend.currency_code === budget.currency_code ? share(spend, budget) : null,
    ...(notReported !== undefined ? { not_reported: notReported } : {}),
  };
}

function verdictOf(o: Omit<AlertInput, "verdict">): PacingVerdict {
  const delivered = o.campaign.progress?.impressions_delivered ?? 0;
  if (o.now < o.start) return "not started";
  if (o.now >= o.end) return "ended";
  if (delivered >= o.campaign.budget_impressions) return "budget delivered";
  // One sample has no history: an inactive campaign that delivered nothing was never activated.
  if (!o.campaign.active) return delivered > 0 ? "paused" : "never activated";
  // Within ± the threshold, both ends included, is on track: exactly -10% against 10 is.
  const d = o.outlook.difference;
  if (Ratio.compare(Ratio.abs(d), o.thresholds.behind) <= 0) return "on track";
  return d.n < 0n ? "behind" : "ahead";
}

function creativeProblems(creative: Creative): CreativeProblem[] {
  const problem = (reason: string) => ({ creative_id: creative.id, name: creative.name, reason });
  const out: CreativeProblem[] = [];
  if (creative.processing_status === "PROCESSING") out.push(problem("processing"));
  if (creative.processing_status === "FAILED") out.push(problem("processing failed"));
  if (creative.archived) out.push(problem("archived"));
  for (const audit of creative.audits) {
    if (audit.status === "APPROVED") continue;
    const message = audit.message ? `: ${audit.message}` : "";
    const what = audit.status === "DENIED" ? "denied" : "pending";
    out.push(problem(`audit ${what} at network ${audit.network_id}${message}`));
  }
  if (out.length === 0 && !creativeCanServe(creative)) out.push(problem("not reviewed by any network yet"));
  return out;
}

/** Percent of a whole, from the exact amounts, rounded once (src/model/ratio.ts). */
function share(part: Money, whole: Money): number {
  const total = Money.toNanos(whole);
  return total <= 0n ? 0 : Ratio.toJson(Ratio.of(Money.toNanos(part) * 100n, total));
}
