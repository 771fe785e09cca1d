/**
 * `doohctl status` renderers: functions from a StatusReport to text. Text has bars for a
 * terminal (colour as an option); Markdown has a table and a Mermaid gantt chart of the
 * flights with today marked (GitHub renders it); JSON is the report itself.
 */
import { count, type Paint, paint } from "./format.js";
import type { CampaignStatus, PacingVerdict, StatusReport } from "./status-report.js";

const EN_US = new Intl.NumberFormat("en-US");
const BAR_WIDTH = 20;

export function renderStatusJson(report: StatusReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

function bar(pct: number): string {
  const filled = Math.round((Math.min(100, Math.max(0, pct)) / 100) * BAR_WIDTH);
  return `[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}]`;
}

function verdictText(c: CampaignStatus): string {
  const { verdict, difference_pct } = c.pacing;
  if (verdict === "behind" || verdict === "ahead" || verdict === "on track") {
    const sign = difference_pct > 0 ? "+" : "";
    return `${verdict} (${sign}${difference_pct}% against a linear pace)`;
  }
  return verdict;
}

function colourOf(p: Paint, verdict: PacingVerdict): (text: string) => string {
  if (verdict === "behind") return p.remove;
  if (verdict === "ahead" || verdict === "paused") return p.change;
  if (verdict === "on track") return p.add;
  return p.dim;
}

function summaryLine(report: StatusReport): string {
  const s = report.summary;
  const scope =
    report.scope === "all" ? "live campaigns of the declared insertion orders" : "declared campaigns";
  return (
    `${count(s.campaigns, "campaign")} (${scope}) at ${report.generated_at}: ` +
    `${s.behind} behind pace by more than ${report.behind_threshold_pct}%, ` +
    `${s.cannot_serve} cannot serve, ${s.paused_by_apply} paused by an unfinished apply`
  );
}

export function renderStatusText(report: StatusReport, options: { colour: boolean }): string {
  const p = paint(options.colour);
  const lines: string[] = [];
  for (const c of report.campaigns) {
    lines.push(`${p.bold(`campaign ${c.id} "${c.name}"`)} (insertion order ${c.insertion_order_id})`);
    lines.push(
      `  flight       ${bar(c.flight_elapsed_pct)} ${c.flight_elapsed_pct}% of ${c.start_time} .. ${c.end_time}`,
    );
    lines.push(
      `  impressions  ${bar(c.impressions.pct)} ${c.impressions.pct}%: ` +
        `${EN_US.format(c.impressions.delivered)} of ${EN_US.format(c.impressions.budget)}`,
    );
    lines.push(`  spend        ${bar(c.spend.pct)} ${c.spend.pct}%: ${c.spend.amount} of ${c.spend.budget}`);
    lines.push(`  pacing       ${colourOf(p, c.pacing.verdict)(verdictText(c))}`);
    lines.push(`  creatives    ${c.creatives.can_serve} of ${c.creatives.total} can serve`);
    for (const problem of c.creatives.problems) {
      lines.push(`    creative ${problem.creative_id} "${problem.name}": ${problem.reason}`);
    }
    if (c.paused_by_apply) {
      const who = c.paused_by_apply.apply_running ? "a running apply" : "an apply that did not finish";
      lines.push(
        p.change(`  paused by ${who} (${c.paused_by_apply.apply_id}) at ${c.paused_by_apply.paused_at}`),
      );
      if (!c.paused_by_apply.apply_running) lines.push("    the next plan or apply reactivates it");
    }
    for (const alert of c.alerts) lines.push(p.remove(`  ! ${alert}`));
    lines.push("");
  }
  lines.push(summaryLine(report));
  return `${lines.join("\n")}\n`;
}

/** Table cells: a pipe or a line break would end the cell or the row. */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

/** Mermaid task names: `:` starts the task's data and `#` a comment. */
function ganttName(text: string): string {
  return text.replace(/[:#;]/g, " ").replace(/\s+/g, " ").trim();
}

export function renderStatusMarkdown(report: StatusReport): string {
  const lines = [`### doohctl status`, "", summaryLine(report), ""];
  if (report.campaigns.length > 0) {
    lines.push(
      "| campaign | flight | impressions | spend | pacing | creatives | alerts |",
      "|---|---|---|---|---|---|---|",
    );
    for (const c of report.campaigns) {
      const problems = c.creatives.problems.map((p) => `${p.creative_id}: ${p.reason}`);
      lines.push(
        `| ${cell(`${c.id} ${c.name}`)} | ${c.flight_elapsed_pct}% | ` +
          `${EN_US.format(c.impressions.delivered)} / ${EN_US.format(c.impressions.budget)} (${c.impressions.pct}%) | ` +
          `${c.spend.amount} / ${c.spend.budget} (${c.spend.pct}%) | ${verdictText(c)} | ` +
          `${c.creatives.can_serve}/${c.creatives.total} can serve${problems.length > 0 ? `; ${cell(problems.join("; "))}` : ""} | ` +
          `${c.alerts.length > 0 ? `**${c.alerts.join(", ")}**` : ""} |`,
      );
    }
    lines.push("", ...gantt(report));
  }
  return `${lines.join("\n")}\n`;
}

/** The flights on a Mermaid gantt chart, one section per insertion order, today marked. */
function gantt(report: StatusReport): string[] {
  const lines = [
    "```mermaid",
    "gantt",
    "  title Flights",
    "  dateFormat YYYY-MM-DD",
    "  axisFormat %Y-%m-%d",
    "  todayMarker off",
  ];
  const byOrder = new Map<string, CampaignStatus[]>();
  for (const c of report.campaigns) {
    byOrder.set(c.insertion_order_id, [...(byOrder.get(c.insertion_order_id) ?? []), c]);
  }
  for (const [order, campaigns] of byOrder) {
    lines.push(`  section insertion order ${order}`);
    for (const c of campaigns) {
      const tag =
        c.alerts.length > 0 ? "crit, " : c.pacing.verdict === "ended" ? "done, " : c.active ? "active, " : "";
      lines.push(
        `  ${ganttName(`${c.id} ${c.name}`)} :${tag}c${c.id}, ${day(c.start_time)}, ${day(c.end_time)}`,
      );
    }
  }
  // Mermaid's own today marker is the reader's clock; the report's instant is the one it shows.
  const today = day(report.generated_at);
  lines.push("  section today", `  ${today} :milestone, today, ${today}, 0d`, "```");
  return lines;
}

/** The UTC day of an instant (times are sent and shown as UTC). */
function day(time: string): string {
  return time.slice(0, 10);
}
