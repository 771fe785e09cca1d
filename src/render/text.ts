/**
 * The plan for a terminal, Terraform-like: changes by insertion order with `+ ~ -` markers, the
 * findings, the ordered requests and the summary.
 */

import { count } from "../model/plural.js";
import { printable } from "../model/printable.js";
import { PHASES, type Plan } from "../plan/types.js";
import {
  actionCounts,
  darkTime,
  detailLines,
  eta,
  groups,
  headline,
  KINDS,
  noChanges,
  type Paint,
  paint,
  spendRows,
  where,
} from "./format.js";
import { scopeBanner } from "./scope.js";

export interface TextOptions {
  colour: boolean;
}

function marked(p: Paint, marker: "+" | "~" | "-", text: string): string {
  const fn = marker === "+" ? p.add : marker === "-" ? p.remove : p.change;
  return fn(`${marker} ${text}`);
}

export function renderText(plan: Plan, options: TextOptions): string {
  const p = paint(options.colour);
  const out: string[] = [];
  const errors = plan.findings.filter((f) => f.severity === "error").length;
  out.push(
    p.bold(
      `doohctl plan: ${plan.changes.length === 0 ? noChanges(plan) : actionCounts(plan)}${errors > 0 ? `; ${count(errors, "error")}, nothing can be applied` : ""}`,
    ),
  );
  out.push(p.dim(`${plan.connection.api_origin} (${plan.connection.environment}), ${plan.created_at}`));
  if (plan.targets.length > 0) out.push(p.dim(`narrowed to --target ${plan.targets.join(", ")}`));
  const scoped = scopeBanner(plan);
  if (scoped !== undefined) out.push(p.bold(scoped));
  if (plan.allowed) out.push(p.bold(`policy denials allowed by --allow: ${plan.allowed.join(", ")}`));
  for (const group of groups(plan)) {
    out.push("", p.bold(group.title));
    for (const change of group.changes) {
      const at = where(change.source);
      out.push(`  ${marked(p, KINDS[change.kind].marker, headline(change))}${at ? p.dim(`  (${at})`) : ""}`);
      for (const line of detailLines(change)) out.push(`      ${marked(p, line.marker, line.text)}`);
    }
  }
  if (plan.findings.length > 0) {
    out.push("", p.bold("Findings"));
    for (const f of plan.findings) {
      const tag =
        f.severity === "error"
          ? p.remove(f.severity)
          : f.severity === "warning"
            ? p.change(f.severity)
            : f.severity;
      const at = where(f.source);
      out.push(`  ${tag} ${f.code}: ${printable(f.message)}${at ? p.dim(` (${printable(at)})`) : ""}`);
    }
  }
  if (plan.requests.length > 0) {
    out.push("", p.bold(`Requests, in apply order (${eta(plan)})`));
    let phase = 0;
    for (const r of plan.requests) {
      if (r.phase !== phase) {
        phase = r.phase;
        out.push(p.dim(`  phase ${phase}: ${PHASES[r.phase]}`));
      }
      out.push(
        `  ${String(r.seq).padStart(4)}. ${r.method} ${r.path}: ${printable(r.description)} [${r.change_ids.join(", ")}]`,
      );
    }
  }
  out.push("", p.bold("Summary"));
  out.push(`  ${actionCounts(plan)}`);
  out.push(`  ${eta(plan)}; ${count(plan.summary.read_requests, "read request")} made`);
  const dark = darkTime(plan);
  if (dark) out.push(`  ${dark}`);
  for (const io of plan.summary.insertion_orders) {
    out.push(`  insertion order ${io.insertion_order_id}: ${io.lines.join("; ")}`);
  }
  const spend = spendRows(plan);
  if (spend.length > 0) {
    out.push("", p.bold("Maximum spend (spent + undelivered impressions x cpm / 1000; see docs/plan.md)"));
    for (const r of spend) {
      const left = r.remaining ? `; ${r.remaining} left to spend` : "";
      out.push(`${r.campaign ? "    " : "  "}${r.advertiser}: ${r.before} -> ${r.after}, ${r.change}${left}`);
    }
  }
  return `${out.join("\n")}\n`;
}
