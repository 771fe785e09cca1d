/**
 * `doohctl status` as data: from campaigns read with progress (G2), their creatives and the
 * recovery record, at a given instant, the delivery, forecast, pacing and serving state of
 * each campaign, its alerts, and a rollup per insertion order. Pure: the reads and the clock
 * are the caller's. The renderers (src/render/status.ts) and `--format json` show this value;
 * docs/status.md documents every verdict and alert.
 */
import { canServe as creativeCanServe } from "../model/creative-serving.js";
import { Money } from "../model/money.js";
import { shownPercent } from "../model/percent.js";
import type { RecordedPause } from "../model/recovery.js";
import { Time } from "../model/time.js";
import type { Campaign, Creative, InsertionOrder } from "../model/wire.js";
import { maximumSpendMoney } from "../plan/findings/spend.js";
import { DAY_MS, type Forecast, forecast } from "./forecast.js";
import { type InsertionOrderStatus, rollup } from "./rollup.js";

export const STATUS_FORMAT_VERSION = 2;

/** `--behind-threshold` default: a pace more than 10% short of what the remaining budget needs. */
export const DEFAULT_BEHIND_THRESHOLD_PCT = 10;
/** `--ended-short-threshold` default: a flight that ended more than 5% short of its budget. */
export const DEFAULT_ENDED_SHORT_PCT = 5;
/** `--grace-hours` default: a campaign a day into its flight should be delivering. */
export const DEFAULT_GRACE_HOURS = 24;
/** An ended-short alert stands for this long after the end, then the flight is history. */
export const ENDED_SHORT_WINDOW_DAYS = 7;

export type PacingVerdict =
  | "not started"
  | "on track"
  | "ahead"
  | "behind"
  | "budget delivered"
  | "paused"
  | "never activated"
  | "ended";

export type AlertKind =
  | "behind"
  | "budget exhausted"
  | "ended short"
  | "inactive"
  | "nothing delivered"
  | "no creative"
  | "paused by apply";

export interface StatusAlert {
  kind: AlertKind;
  message: string;
}

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
   * Exact amounts (`Money.format`); text and Markdown round them for people. `amount` is
   * `progress.spend`, in the currency it was spent in; `budget` is the campaign's maximum spend
   * in its cpm's currency, the plan's figure (src/plan/findings/spend.ts: spent plus the undelivered
   * budget at the current cpm); `maximum` every currency's maximum spend, `budget`'s first.
   * `pct` is amount of budget, 0 when their currencies differ (never converted).
   */
  spend: { amount: string; budget: string; maximum: string[]; pct: number };
  pacing: { verdict: PacingVerdict } & Forecast;
  creatives: { total: number; can_serve: number; problems: CreativeProblem[] };
  /**
   * An ended flight short of its budget: the impressions and money (at its current cpm, exact)
   * not delivered. Shown whether or not it alerts: a campaign declared `active: false`, or
   * ended more than 7 days ago, still leaves this money undelivered.
   */
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

type SummaryKey =
  | "behind"
  | "budget_exhausted"
  | "ended_short"
  | "not_delivering"
  | "cannot_serve"
  | "paused_by_apply";

const SUMMARY_OF: Record<AlertKind, SummaryKey> = {
  behind: "behind",
  "budget exhausted": "budget_exhausted",
  "ended short": "ended_short",
  inactive: "not_delivering",
  "nothing delivered": "not_delivering",
  "no creative": "cannot_serve",
  "paused by apply": "paused_by_apply",
};

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
    behind: 0,
    budget_exhausted: 0,
    ended_short: 0,
    not_delivering: 0,
    cannot_serve: 0,
    paused_by_apply: 0,
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
  const outlook = forecast({
    start,
    end,
    now,
    delivered,
    budget,
    delivering: campaign.active && canServe > 0,
  });
  const declaredInactive = input.declaredInactive?.has(campaign.id) === true;
  const verdict = verdictOf({
    campaign,
    start,
    end,
    now,
    delivered,
    outlook,
    threshold: input.thresholds.behind_pct,
  });
  const spend = campaign.progress
    ? Money.fromWire(campaign.progress.spend)
    : Money.zero(campaign.cpm.currency_code);
  const cpm = Money.fromWire(campaign.cpm);
  const { maximum } = maximumSpendMoney(
    { impressions: budget, cpm, end_time: campaign.end_time },
    campaign.progress ? { delivered, spent: spend } : undefined,
    now,
  );
  const budgetSpend =
    maximum.find((m) => m.currency_code === cpm.currency_code) ?? Money.zero(cpm.currency_code);
  const otherMaximum = maximum.filter((m) => m !== budgetSpend);
  const alerts = alertsOf({
    campaign,
    creatives,
    canServe,
    pause,
    declaredInactive,
    verdict,
    outlook,
    start,
    end,
    input,
  });
  return {
    id: campaign.id,
    name: campaign.name,
    insertion_order_id: campaign.insertion_order_id,
    active: campaign.active,
    declared_inactive: declaredInactive,
    start_time: campaign.start_time,
    end_time: campaign.end_time,
    // Exact in JSON; the text and Markdown round once (src/render/status.ts).
    flight_elapsed_pct: end > start ? Math.min(100, Math.max(0, ((now - start) * 100) / (end - start))) : 100,
    impressions: { delivered, budget, pct: budget > 0 ? (delivered * 100) / budget : 0 },
    spend: {
      amount: Money.format(spend),
      budget: Money.format(budgetSpend),
      maximum: [budgetSpend, ...otherMaximum].map(Money.format),
      pct:
        spend.currency_code === budgetSpend.currency_code
          ? share(Money.toNanos(spend), Money.toNanos(budgetSpend))
          : 0,
    },
    pacing: { verdict, ...outlook },
    creatives: {
      total: creatives.length,
      can_serve: canServe,
      problems: creatives.flatMap(creativeProblems),
    },
    ...(now >= end && delivered < budget
      ? {
          undelivered: {
            impressions: budget - delivered,
            amount: Money.format(undeliveredMoney(campaign, budget - delivered)),
          },
        }
      : {}),
    ...(pause && !campaign.active
      ? {
          paused_by_apply: {
            apply_id: pause.apply_id,
            paused_at: pause.paused_at,
            apply_running: pause.owner_running,
          },
        }
      : {}),
    alerts,
  };
}

function verdictOf(o: {
  campaign: Campaign;
  start: number;
  end: number;
  now: number;
  delivered: number;
  outlook: Forecast;
  threshold: number;
}): PacingVerdict {
  if (o.now < o.start) return "not started";
  if (o.now >= o.end) return "ended";
  if (o.delivered >= o.campaign.budget_impressions) return "budget delivered";
  // One sample has no history: an inactive campaign that delivered nothing was never activated.
  if (!o.campaign.active) return o.delivered > 0 ? "paused" : "never activated";
  const d = o.outlook.difference_pct;
  return d < -o.threshold ? "behind" : d > o.threshold ? "ahead" : "on track";
}

function alertsOf(o: {
  campaign: Campaign;
  creatives: readonly Creative[];
  canServe: number;
  pause: RecordedPause | undefined;
  declaredInactive: boolean;
  verdict: PacingVerdict;
  outlook: Forecast;
  start: number;
  end: number;
  input: StatusInput;
}): StatusAlert[] {
  const { campaign, outlook, input } = o;
  const now = input.now;
  const delivered = campaign.progress?.impressions_delivered ?? 0;
  const budget = campaign.budget_impressions;
  const ended = now >= o.end;
  const alerts: StatusAlert[] = [];
  const add = (kind: AlertKind, message: string) => alerts.push({ kind, message });
  const graceOver = now - o.start > input.thresholds.grace_hours * 3_600_000;
  // A pace needs time to mean anything: judged after the grace period, and a campaign that
  // delivered nothing at all is "nothing delivered" below, not behind.
  if (o.verdict === "behind" && graceOver && delivered > 0) {
    add(
      "behind",
      `behind pace: ${shownPercent(outlook.difference_pct, input.thresholds.behind_pct)} against what the remaining budget needs`,
    );
  }
  // Running out early is a pace judged like "ahead": after the grace period and outside the
  // band. A campaign the verdict calls on track raises no budget alert; one that delivered its
  // whole budget before its end is a fact, not a forecast, and always does.
  const runsOut = o.verdict === "ahead" && graceOver;
  if (
    outlook.exhausted_at !== undefined &&
    outlook.dark_days !== undefined &&
    (o.verdict === "budget delivered" || runsOut)
  ) {
    add(
      "budget exhausted",
      delivered >= budget
        ? `budget delivered before the flight ends: dark for the remaining ${darkDays(outlook.dark_days)} to ${campaign.end_time}`
        : `budget runs out at this pace on ${outlook.exhausted_at}: dark for ${darkDays(outlook.dark_days)} before the flight ends`,
    );
  }
  const short = budget - delivered;
  const window = now - o.end <= ENDED_SHORT_WINDOW_DAYS * DAY_MS;
  if (
    ended &&
    window &&
    !o.declaredInactive &&
    budget > 0 &&
    (short / budget) * 100 > input.thresholds.ended_short_pct
  ) {
    const undelivered = undeliveredMoney(campaign, short);
    add(
      "ended short",
      `ended ${round((short / budget) * 100)}% short: ${EN_US.format(short)} impressions (${Money.formatAmount(undelivered)}) not delivered`,
    );
  }
  if (!ended && campaign.active && o.canServe === 0) {
    add("no creative", o.creatives.length === 0 ? "no creative" : "no creative can serve");
  }
  // A campaign an unfinished apply left paused delivers nothing until it is reactivated.
  if (!ended && o.pause && !campaign.active) add("paused by apply", "paused by an unfinished apply");
  const intoFlight = `${round((now - o.start) / DAY_MS)} days into its flight`;
  if (!ended && graceOver && delivered < budget) {
    if (!campaign.active && !o.declaredInactive && !o.pause) {
      const state = delivered > 0 ? "paused" : "never activated";
      add(
        "inactive",
        `${state} ${intoFlight}: activate it, or declare active: false if it is held back on purpose`,
      );
    } else if (campaign.active && delivered === 0 && o.canServe > 0) {
      add("nothing delivered", `nothing delivered ${intoFlight}`);
    }
  }
  // The cause before its symptoms: a campaign without a creative is also behind.
  return alerts.sort((a, b) => ALERT_ORDER.indexOf(a.kind) - ALERT_ORDER.indexOf(b.kind));
}

const ALERT_ORDER: readonly AlertKind[] = [
  "no creative",
  "paused by apply",
  "inactive",
  "nothing delivered",
  "ended short",
  "budget exhausted",
  "behind",
];

const EN_US = new Intl.NumberFormat("en-US");

/** What `impressions` not delivered would have cost at the campaign's current cpm. */
function undeliveredMoney(campaign: Campaign, impressions: number): Money {
  return Money.fromNanos(
    (Money.toNanos(campaign.cpm) * BigInt(impressions)) / 1000n,
    campaign.cpm.currency_code,
  );
}

function darkDays(days: number): string {
  return days < 0.1 ? "less than 0.1 days" : `${days.toFixed(1)} days`;
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

/** Percent of a whole in nanos, to 10 decimals, without binary floats on the amounts themselves. */
function share(part: bigint, whole: bigint): number {
  if (whole <= 0n) return 0;
  return Number((part * 10n ** 12n) / whole) / 1e10;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
