/**
 * The Mermaid gantt chart of `doohctl status --format markdown`: one section per insertion
 * order with a bar for the order's span, then a bar per campaign whose name says its state
 * and whose colour tells the states apart (docs/status.md, Formats). Today is a `vert`
 * marker line, which the Mermaid release GitHub renders with parses (11.x); Mermaid's own
 * `todayMarker` is the reader's clock, so it is off. The test suite parses every chart this
 * writes with Mermaid's own parser (test/status/mermaid.ts).
 */
import { printable } from "../model/printable.js";
import type { CampaignStatus, StatusReport } from "../status/status.js";

/**
 * Mermaid task names: `:` starts the task's data, `#` and `;` end a line or start a comment;
 * `<`, `>`, `"` and `` ` `` would be markup or quoting to Mermaid, so a name from the DSP is
 * only ever text; control and bidi characters are escapes (printable), never a line break.
 */
function ganttName(text: string): string {
  return printable(text)
    .replace(/[:#;<>"`]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** The UTC day of an instant (times are sent and shown as UTC). */
function day(time: string): string {
  return time.slice(0, 10);
}

/**
 * Mermaid's task tags are the only colours a gantt has: `active`, `done`, `crit` and their
 * pairs. Pace alerts (behind, budget running out) are crit + active, an ended flight short of
 * its budget crit + done, a campaign that cannot deliver (no creative, inactive, nothing
 * delivered, paused by an apply) crit alone; a campaign never activated and held back on
 * purpose stays plain, a paused one is `done` (it delivered once).
 */
function tagOf(c: CampaignStatus): string {
  const first = c.alerts[0]?.kind; // the cause first (src/status/status.ts)
  if (first === "behind" || first === "budget exhausted") return "crit, active, ";
  if (first === "ended short") return "crit, done, ";
  if (first === "inactive" && c.pacing.verdict === "never activated") return "";
  if (first !== undefined) return "crit, ";
  if (c.pacing.verdict === "ended" || c.pacing.verdict === "paused") return "done, ";
  if (c.pacing.verdict === "never activated") return "";
  return "active, ";
}

function stateOf(c: CampaignStatus): string {
  const first = c.alerts[0];
  if (first?.kind === "no creative") return first.message;
  if (first?.kind === "paused by apply") return "paused by an unfinished apply";
  if (first?.kind === "ended short") return "ended short";
  if (first?.kind === "nothing delivered") return "nothing delivered";
  if (first?.kind === "budget exhausted") {
    return c.pacing.verdict === "budget delivered" ? "budget delivered" : "budget runs out early";
  }
  return c.pacing.verdict;
}

export function statusGantt(report: StatusReport): string[] {
  const lines = [
    "```mermaid",
    "gantt",
    "  title Flights",
    "  dateFormat YYYY-MM-DD",
    "  axisFormat %Y-%m-%d",
    "  todayMarker off",
  ];
  for (const order of report.insertion_orders) {
    lines.push(`  section insertion order ${ganttName(order.id)}`);
    lines.push(
      `  ${ganttName(`insertion order ${order.id}`)} :io${order.id}, ${day(order.start_time)}, ${day(order.end_time)}`,
    );
    for (const c of report.campaigns.filter((x) => x.insertion_order_id === order.id)) {
      lines.push(
        `  ${ganttName(`${c.id} ${c.name} - ${stateOf(c)}`)} :${tagOf(c)}c${c.id}, ${day(c.start_time)}, ${day(c.end_time)}`,
      );
    }
  }
  // The report's instant, not the reader's: a line across every section.
  const today = day(report.generated_at);
  lines.push(`  today ${today} :vert, today, ${today}, 0d`, "```");
  return lines;
}
