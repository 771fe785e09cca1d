/**
 * `doohctl status` renderers: text with bars (colour an option), Markdown with tables and a gantt
 * chart (status-gantt.ts), JSON the report itself. Text and Markdown show amounts for people:
 * minor units, half to even (`Money.formatAmount`).
 */
import { Money } from "../model/money.js";
import { shownPercent } from "../model/percent.js";
import { count, grouped, plural } from "../model/plural.js";
import { printable } from "../model/printable.js";
import { Ratio } from "../model/ratio.js";
import type { InsertionOrderStatus } from "../status/rollup.js";
import type { CampaignStatus, PacingVerdict, StatusReport } from "../status/status.js";
import { type Paint, paint } from "./format.js";
import { cell } from "./markdown-text.js";
import { statusGantt } from "./status-gantt.js";

const BAR_WIDTH = 20;

export function renderStatusJson(report: StatusReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** An exact amount of the report ("546.25 USD") as people read it ("546.25 USD", "1,250.00 USD"). */
function amount(text: string): string {
  return Money.formatAmount(Money.parse(text));
}

function bar(pct: number): string {
  const filled = Math.round((Math.min(100, Math.max(0, pct)) / 100) * BAR_WIDTH);
  return `[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}]`;
}

function verdictText(c: CampaignStatus, threshold: number): string {
  const { verdict, difference_pct } = c.pacing;
  if (verdict === "behind" || verdict === "ahead" || verdict === "on track") {
    // The JSON figure, as the decimal it is, rounded for people with the digits that keep it off the threshold.
    const shown = shownPercent(Ratio.fromDecimal(difference_pct), {
      threshold: Ratio.fromDecimal(threshold),
    });
    return `${verdict} (${shown} against what the remaining budget needs)`;
  }
  return verdict;
}

function forecastText(c: CampaignStatus): string {
  const p = c.pacing;
  if (p.verdict === "not started") return "not started";
  const pace = `${whole(p.pace_per_day)} a day`;
  if (p.verdict === "ended") return `${pace}; ended with ${grouped(c.impressions.delivered)}`;
  const needed = p.required_per_day > 0 ? ` (${whole(p.required_per_day)} needed)` : "";
  return `${pace}${needed}; ${grouped(p.projected_impressions)} of ${grouped(c.impressions.budget)} by the end`;
}

function colourOf(p: Paint, c: CampaignStatus): (text: string) => string {
  const verdict: PacingVerdict = c.pacing.verdict;
  if (verdict === "behind" || c.alerts.length > 0) return p.remove;
  if (verdict === "ahead" || verdict === "paused" || verdict === "never activated") return p.change;
  if (verdict === "on track") return p.add;
  return p.dim;
}

const SUMMARY_WORDS: [keyof StatusReport["summary"], string][] = [
  ["behind", "behind pace"],
  ["budget_exhausted", "out of budget before the end"],
  ["ended_short", "ended short"],
  ["not_delivering", "not delivering"],
  ["cannot_serve", "cannot serve"],
  ["paused_by_apply", "paused by an unfinished apply"],
];

function summaryLine(report: StatusReport): string {
  const s = report.summary;
  const scope =
    report.scope === "all" ? "live campaigns of the declared insertion orders" : "declared campaigns";
  const kinds = SUMMARY_WORDS.filter(([key]) => s[key] > 0).map(([key, words]) => `${s[key]} ${words}`);
  const alerts =
    s.alerting === 0
      ? "no alert"
      : `${count(s.alerting, "with an alert", "with alerts")} (${kinds.join(", ")})`;
  const t = report.thresholds;
  return (
    `${count(s.campaigns, "campaign")} (${scope}) at ${report.generated_at}: ${alerts}; ` +
    `thresholds: behind ${t.behind_pct}%, ended short ${t.ended_short_pct}%, grace ${t.grace_hours} h`
  );
}

/** Each currency's spend of its budget; G15: where the DSP does not report some, it says so, never 0. */
function spendOf(order: InsertionOrderStatus): string {
  return order.spend
    .map((s) =>
      s.amount === null
        ? `${currencyOf(s.budget)} spend not reported for ${plural(s.not_reported?.length ?? 0, "campaign")} ${(s.not_reported ?? []).join(", ")}, of at least ${amount(s.budget)}`
        : `${amount(s.amount)} of ${amount(s.budget)}`,
    )
    .join(", ");
}

function currencyOf(text: string): string {
  return Money.parse(text).currency_code;
}

/**
 * A campaign's spend: the share of its budget, or, when the DSP reports it in another currency than
 * the cpm's (G15), what it reports, what it does not, and what is left.
 */
function campaignSpend(c: CampaignStatus, bars: boolean): string {
  const s = c.spend;
  if (s.pct === null) {
    const unknown = s.not_reported ?? currencyOf(s.budget);
    return `${amount(s.amount)} reported; spend in ${unknown} not reported by the DSP; ${amount(s.budget)} left at the current cpm`;
  }
  return bars
    ? `${bar(s.pct)} ${pct(s.pct)}%: ${amount(s.amount)} of ${amount(s.budget)}`
    : `${amount(s.amount)} / ${amount(s.budget)} (${pct(s.pct)}%)`;
}

export function renderStatusText(report: StatusReport, options: { colour: boolean }): string {
  const p = paint(options.colour);
  const lines: string[] = [];
  for (const c of report.campaigns) {
    lines.push(
      `${p.bold(`campaign ${printable(c.id)} "${printable(c.name)}"`)} (insertion order ${printable(c.insertion_order_id)})`,
      `  flight       ${bar(c.flight_elapsed_pct)} ${pct(c.flight_elapsed_pct)}% of ${c.start_time} .. ${c.end_time}`,
      `  impressions  ${bar(c.impressions.pct)} ${pct(c.impressions.pct)}%: ` +
        `${grouped(c.impressions.delivered)} of ${grouped(c.impressions.budget)}`,
      `  spend        ${campaignSpend(c, true)}`,
      `  forecast     ${forecastText(c)}`,
      `  pacing       ${colourOf(p, c)(verdictText(c, report.thresholds.behind_pct))}`,
      `  creatives    ${c.creatives.can_serve} of ${c.creatives.total} can serve`,
      ...c.creatives.problems.map(
        (problem) =>
          `    creative ${printable(problem.creative_id)} "${printable(problem.name)}": ${printable(problem.reason)}`,
      ),
    );
    if (c.paused_by_apply) {
      const who = c.paused_by_apply.apply_running ? "a running apply" : "an apply that did not finish";
      lines.push(
        p.change(`  paused by ${who} (${c.paused_by_apply.apply_id}) at ${c.paused_by_apply.paused_at}`),
      );
      if (!c.paused_by_apply.apply_running) lines.push("    the next plan or apply reactivates it");
    }
    if (c.undelivered && !c.alerts.some((a) => a.kind === "ended short")) {
      // Silent for the exit code (declared active: false, or ended over 7 days ago), never hidden.
      lines.push(
        `  undelivered  ${grouped(c.undelivered.impressions)} impressions (${amount(c.undelivered.amount)}) not delivered`,
      );
    }
    for (const alert of c.alerts) lines.push(p.remove(`  ! ${printable(alert.message)}`));
    lines.push("");
  }
  for (const order of report.insertion_orders) {
    const money = order.budget_money;
    const budget = money === undefined ? [] : [`  budget_money ${money === null ? "none" : amount(money)}`];
    lines.push(
      `${p.bold(`insertion order ${printable(order.id)}`)}: ${count(order.campaigns, "campaign")}, ${order.start_time} .. ${order.end_time}`,
      `  impressions  ${grouped(order.impressions.delivered)} of ${grouped(order.impressions.budget)}, ` +
        `${grouped(order.impressions.projected)} by the end at the current pace`,
      `  spend        ${spendOf(order)}`,
      ...budget,
      `  alerts       ${order.alerting === 0 ? "none" : `${count(order.alerting, "campaign")} with alerts`}`,
      "",
    );
  }
  lines.push(summaryLine(report));
  return `${lines.join("\n")}\n`;
}

export function renderStatusMarkdown(report: StatusReport): string {
  const lines = [`### doohctl status`, "", summaryLine(report), ""];
  if (report.campaigns.length > 0) {
    lines.push(
      "| campaign | flight | impressions | spend | forecast | pacing | creatives | alerts |",
      "|---|---|---|---|---|---|---|---|",
    );
    for (const c of report.campaigns) {
      const problems = c.creatives.problems.map((p) => `${p.creative_id}: ${p.reason}`);
      lines.push(
        `| ${cell(`${c.id} ${c.name}`)} | ${pct(c.flight_elapsed_pct)}% | ` +
          `${grouped(c.impressions.delivered)} / ${grouped(c.impressions.budget)} (${pct(c.impressions.pct)}%) | ` +
          `${cell(campaignSpend(c, false))} | ${cell(forecastText(c))} | ${verdictText(c, report.thresholds.behind_pct)} | ` +
          `${c.creatives.can_serve}/${c.creatives.total} can serve${problems.length > 0 ? `; ${cell(problems.join("; "))}` : ""} | ` +
          `${c.alerts.length > 0 ? `**${cell(c.alerts.map((a) => a.message).join("; "))}**` : ""} |`,
      );
    }
    lines.push(
      "",
      "| insertion order | campaigns | flights | impressions | by the end at the current pace | spend | with alerts |",
      "|---|---|---|---|---|---|---|",
    );
    for (const order of report.insertion_orders) {
      lines.push(
        `| ${cell(order.id)} | ${order.campaigns} | ${order.start_time.slice(0, 10)} .. ${order.end_time.slice(0, 10)} | ` +
          `${grouped(order.impressions.delivered)} / ${grouped(order.impressions.budget)} | ` +
          `${grouped(order.impressions.projected)} | ${spendOf(order)} | ${order.alerting} |`,
      );
    }
    lines.push("", ...statusGantt(report));
  }
  return `${lines.join("\n")}\n`;
}

/** A share as people read it: the report's figure, as the decimal it is, to a tenth, half to even. */
function pct(value: number): number {
  return Number(Ratio.toFixed(Ratio.fromDecimal(value), 1));
}

/** Impressions a day as people read them: the report's figure to a whole, half to even. */
function whole(value: number): string {
  return grouped(BigInt(Ratio.toFixed(Ratio.fromDecimal(value), 0)));
}
