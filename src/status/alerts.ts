/**
 * `doohctl status` alerts: each way a flight goes dark or ends short, a reason for exit code 2
 * (docs/status.md, "Alerts"). Thresholds are judged on exact values (`Ratio`); a message's percent
 * is rounded once, after (src/model/percent.ts).
 */
import { Money } from "../model/money.js";
import { shownPercent } from "../model/percent.js";
import { grouped } from "../model/plural.js";
import { Ratio } from "../model/ratio.js";
import type { RecordedPause } from "../model/recovery.js";
import type { Campaign, Creative } from "../model/wire.js";
import { DAY_MS, type ExactForecast } from "./forecast.js";

/** The alert kinds, in the order a campaign lists its alerts. */
const ALERT_ORDER = [
  "no creative",
  "paused by apply",
  "inactive",
  "nothing delivered",
  "ended short",
  "budget exhausted",
  "behind",
] as const;

export type AlertKind = (typeof ALERT_ORDER)[number];

export interface StatusAlert {
  kind: AlertKind;
  message: string;
}

/** An ended-short alert stands for this long after the end, then the flight is history. */
export const ENDED_SHORT_WINDOW_DAYS = 7;

const HOUR_MS = 3_600_000;

/** The thresholds as exact decimals: `--behind-threshold 10.0001` is 10.0001, not a double near it. */
export interface ExactThresholds {
  behind: Ratio;
  endedShort: Ratio;
  graceHours: Ratio;
}

export interface AlertInput {
  campaign: Campaign;
  creatives: readonly Creative[];
  canServe: number;
  pause: RecordedPause | undefined;
  declaredInactive: boolean;
  verdict: string;
  outlook: ExactForecast;
  start: number;
  end: number;
  now: number;
  thresholds: ExactThresholds;
}

export function alertsOf(o: AlertInput): StatusAlert[] {
  const { campaign, outlook, now } = o;
  const delivered = campaign.progress?.impressions_delivered ?? 0;
  const budget = campaign.budget_impressions;
  const ended = now >= o.end;
  const alerts: StatusAlert[] = [];
  const add = (kind: AlertKind, message: string) => alerts.push({ kind, message });
  const graceOver =
    Ratio.compare(Ratio.of(now - o.start), Ratio.multiply(o.thresholds.graceHours, Ratio.of(HOUR_MS))) > 0;
  // A pace needs time to mean anything: judged after the grace period, and a campaign that
  // delivered nothing at all is "nothing delivered" below, not behind.
  if (o.verdict === "behind" && graceOver && delivered > 0) {
    add(
      "behind",
      `behind pace: ${shownPercent(outlook.difference, { threshold: o.thresholds.behind })} against what the remaining budget needs`,
    );
  }
  // Running out early is judged like "ahead": after the grace period, outside the band; a budget
  // delivered before the end is a fact, not a forecast, and always alerts.
  const runsOut = o.verdict === "ahead" && graceOver;
  if (
    outlook.exhaustedAt !== undefined &&
    outlook.darkDays !== undefined &&
    (o.verdict === "budget delivered" || runsOut)
  ) {
    add(
      "budget exhausted",
      delivered >= budget
        ? `budget delivered before the flight ends: dark for the remaining ${darkDays(outlook.darkDays)} to ${campaign.end_time}`
        : `budget runs out at this pace on ${outlook.exhaustedAt}: dark for ${darkDays(outlook.darkDays)} before the flight ends`,
    );
  }
  const short = budget - delivered;
  const shortPct = budget > 0 ? Ratio.of(BigInt(short) * 100n, budget) : Ratio.zero;
  const window = now - o.end <= ENDED_SHORT_WINDOW_DAYS * DAY_MS;
  if (
    ended &&
    window &&
    !o.declaredInactive &&
    budget > 0 &&
    Ratio.compare(shortPct, o.thresholds.endedShort) > 0
  ) {
    const undelivered = undeliveredMoney(campaign, short);
    const shown = shownPercent(shortPct, { threshold: o.thresholds.endedShort, signed: false });
    add(
      "ended short",
      `ended ${shown} short: ${grouped(short)} impressions (${Money.formatAmount(undelivered)}) not delivered`,
    );
  }
  if (!ended && campaign.active && o.canServe === 0) {
    add("no creative", o.creatives.length === 0 ? "no creative" : "no creative can serve");
  }
  // A campaign an unfinished apply left paused delivers nothing until it is reactivated.
  if (!ended && o.pause && !campaign.active) add("paused by apply", "paused by an unfinished apply");
  const intoFlight = `${Number(Ratio.toFixed(Ratio.of(now - o.start, DAY_MS), 1))} days into its flight`;
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

/** What `impressions` not delivered would have cost at the campaign's current cpm. */
export function undeliveredMoney(campaign: Campaign, impressions: number): Money {
  return Money.fromNanos(
    (Money.toNanos(campaign.cpm) * BigInt(impressions)) / 1000n,
    campaign.cpm.currency_code,
  );
}

const TENTH = Ratio.of(1, 10);

function darkDays(days: Ratio): string {
  return Ratio.compare(days, TENTH) < 0 ? "less than 0.1 days" : `${Ratio.toFixed(days, 1)} days`;
}
