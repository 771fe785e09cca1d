/**
 * `doohctl status` as data: from campaigns read with progress (G2), their creatives and the
 * recovery record, at a given instant, the delivery, pacing and serving state of each
 * campaign. Pure: the reads and the clock are the caller's. The renderers (status.ts) and
 * `--format json` show this value.
 */
import { canServe as creativeCanServe } from "../model/creative-serving.js";
import { Money } from "../model/money.js";
import type { RecordedPause } from "../model/recovery.js";
import { Time } from "../model/time.js";
import type { Campaign, Creative } from "../model/wire.js";

export const STATUS_FORMAT_VERSION = 1;

/** `--behind-threshold` default: behind by more than 10% of the linear pace alerts. */
export const DEFAULT_BEHIND_THRESHOLD_PCT = 10;

export type PacingVerdict = "not started" | "on track" | "ahead" | "behind" | "paused" | "ended";

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
  start_time: string;
  end_time: string;
  /** Share of the flight behind us, 0 to 100. */
  flight_elapsed_pct: number;
  impressions: { delivered: number; budget: number; pct: number };
  spend: { amount: string; budget: string; pct: number };
  pacing: {
    verdict: PacingVerdict;
    /** What a linear pace would have delivered by now. */
    expected_impressions: number;
    /** Delivered against that, in percent: -25 is a quarter behind; 0 before the start. */
    difference_pct: number;
  };
  creatives: { total: number; can_serve: number; problems: CreativeProblem[] };
  /** Set when an apply paused the campaign and has not confirmed its reactivation. */
  paused_by_apply?: { apply_id: string; paused_at: string; apply_running: boolean };
  /** Why this campaign makes the exit code 2; empty when it does not. */
  alerts: string[];
}

export interface StatusReport {
  format_version: typeof STATUS_FORMAT_VERSION;
  generated_at: string;
  behind_threshold_pct: number;
  /** "declared": the campaigns of the config; "all": every live campaign of its insertion orders. */
  scope: "declared" | "all";
  campaigns: CampaignStatus[];
  summary: { campaigns: number; behind: number; cannot_serve: number; paused_by_apply: number };
}

export interface StatusInput {
  campaigns: readonly Campaign[];
  creatives: readonly Creative[];
  recorded: readonly RecordedPause[];
  now: number;
  behindThresholdPct: number;
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
  return {
    format_version: STATUS_FORMAT_VERSION,
    generated_at: Time.fromMillis(input.now),
    behind_threshold_pct: input.behindThresholdPct,
    scope: input.scope,
    campaigns,
    summary: {
      campaigns: campaigns.length,
      behind: campaigns.filter((c) => c.pacing.verdict === "behind").length,
      cannot_serve: campaigns.filter((c) => c.alerts.some((a) => a !== BEHIND)).length,
      paused_by_apply: campaigns.filter((c) => c.paused_by_apply).length,
    },
  };
}

const BEHIND = "behind pace";

function campaignStatus(
  campaign: Campaign,
  creatives: readonly Creative[],
  pause: RecordedPause | undefined,
  input: StatusInput,
): CampaignStatus {
  const start = Time.toMillis(campaign.start_time);
  const end = Time.toMillis(campaign.end_time);
  const elapsed = end > start ? Math.min(1, Math.max(0, (input.now - start) / (end - start))) : 1;
  const delivered = campaign.progress?.impressions_delivered ?? 0;
  const budget = campaign.budget_impressions;
  const expected = Math.floor(budget * elapsed);
  const difference = expected > 0 ? ((delivered - expected) / expected) * 100 : 0;
  const ended = input.now >= end;
  const verdict: PacingVerdict =
    input.now < start
      ? "not started"
      : ended
        ? "ended"
        : !campaign.active
          ? "paused"
          : difference < -input.behindThresholdPct
            ? "behind"
            : difference > input.behindThresholdPct
              ? "ahead"
              : "on track";
  const budgetSpend = Money.fromNanos(
    (Money.toNanos(campaign.cpm) * BigInt(budget)) / 1000n,
    campaign.cpm.currency_code,
  );
  const spend = campaign.progress?.spend ?? Money.zero(campaign.cpm.currency_code);
  const problems = creatives.flatMap(creativeProblems);
  // One rule with plan (src/model/creative-serving.ts; docs/status.md).
  const canServe = creatives.filter(creativeCanServe).length;
  const alerts: string[] = [];
  if (verdict === "behind") alerts.push(BEHIND);
  if (!ended && campaign.active && canServe === 0) {
    alerts.push(creatives.length === 0 ? "no creative" : "no creative can serve");
  }
  // A campaign an unfinished apply left paused delivers nothing until it is reactivated.
  if (!ended && pause && !campaign.active) alerts.push("paused by an unfinished apply");
  return {
    id: campaign.id,
    name: campaign.name,
    insertion_order_id: campaign.insertion_order_id,
    active: campaign.active,
    start_time: campaign.start_time,
    end_time: campaign.end_time,
    flight_elapsed_pct: round(elapsed * 100),
    impressions: { delivered, budget, pct: round(budget > 0 ? (delivered / budget) * 100 : 0) },
    spend: {
      amount: Money.format(spend),
      budget: Money.format(budgetSpend),
      pct: round(share(Money.toNanos(spend), Money.toNanos(budgetSpend))),
    },
    pacing: { verdict, expected_impressions: expected, difference_pct: round(difference) },
    creatives: { total: creatives.length, can_serve: canServe, problems },
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

/** Percent of a whole in nanos, without binary floats on the amounts themselves. */
function share(part: bigint, whole: bigint): number {
  if (whole <= 0n) return 0;
  return Number((part * 100_000n) / whole) / 1000;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
