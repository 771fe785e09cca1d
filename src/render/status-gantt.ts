/**
 * The Mermaid gantt chart of `status --format markdown` (docs/status.md, Formats): a section per
 * insertion order, a bar per campaign named and coloured by its state. Today is a `vert` line (the
 * Mermaid 11.x GitHub renders parses it); `todayMarker` is the reader's clock, so off. The tests
 * parse every chart with Mermaid's own parser (test/status/mermaid.ts).
 */
import { printable } from "../model/printable.js";
import type { CampaignStatus, StatusReport } from "../status/status.js";

/**
 * Mermaid task names: `:#;` and `<>"\`` act there, so a DSP name loses them; control characters are
 * escapes (printable), never a line break.
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
 * A gantt's only colours are the tags `active`, `done`, `crit` and their pairs: pace alerts crit +
 * active, ended short crit + done, cannot deliver crit alone; never activated and held back plain,
 * paused `done` (it delivered once).
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
