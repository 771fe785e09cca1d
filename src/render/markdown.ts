/**
 * The plan for a pull-request comment: summary and findings, a row per insertion order, details and
 * requests in <details> blocks, never over `maxChars` (60,000, under GitHub's limit): the details
 * are cut with a note pointing at the JSON artifact.
 */

import { count as countOf } from "../model/plural.js";
import { type Change, PHASES, type Plan } from "../plan/types.js";
import {
  actionCounts,
  darkTime,
  detailLines,
  eta,
  groups,
  headline,
  KINDS,
  noChanges,
  spendRows,
} from "./format.js";
import { cell } from "./markdown-text.js";
import { scopeBanner } from "./scope.js";

export interface MarkdownOptions {
  /**
   * The ids of the changes that turn a live campaign off, computed by the caller with
   * `deactivatingChangeIds` (src/plan/changes/changes.ts): render counts them, it does not decide.
   */
  deactivating: ReadonlySet<string>;
  /** @default 60000 */
  maxChars?: number;
}

const TRUNCATED =
  "\n\n> The plan is too long for this comment: the rest is cut. The full plan is in the JSON artifact (`doohctl plan -o plan.json`).\n";

/** A quoted line for a `--changed-since` plan, so a reviewer never takes it for the whole config. */
function scopedNote(plan: Plan): string[] {
  const banner = scopeBanner(plan);
  return banner === undefined ? [] : [`> **${cell(banner)}**`, ""];
}

const THRESHOLD_FLAGS = {
  budget_increase_percent: "--budget-increase-threshold",
  cpm_increase_percent: "--cpm-increase-threshold",
  min_budget_days: "--min-budget-days",
} as const;

/**
 * What a guardrails reviewer sees first: rules loosened since the base (DOOH907), or that they were
 * not compared, and the --allow codes and threshold flags in use.
 */
function guardrailNotes(plan: Plan): string[] {
  const out: string[] = [];
  const policy = plan.summary.policy;
  if (policy && policy.loosened.length > 0) {
    out.push(`> **Guardrail policy loosened since ${cell(policy.compared_with ?? "the base")} (DOOH907):**`);
    for (const rule of policy.loosened) out.push(`> - ${cell(rule)}`);
    out.push("");
  } else if (policy && policy.compared_with === undefined) {
    out.push(
      "> Policy not compared with a base revision: run the plan with `--changed-since REF` to list the rules a change loosens.",
      "",
    );
  }
  if (plan.allowed) {
    out.push(
      `> **Policy denials allowed by --allow: ${plan.allowed.map((c) => `\`${c}\``).join(", ")}.**`,
      "",
    );
  }
  const flags = Object.entries(plan.thresholds ?? {}).map(
    ([key, value]) => `\`${THRESHOLD_FLAGS[key as keyof typeof THRESHOLD_FLAGS] ?? key} ${value}\``,
  );
  if (flags.length > 0) out.push(`> **Threshold flags in use: ${flags.join(", ")}.**`, "");
  return out;
}

function count(changes: readonly Change[], test: (c: Change) => boolean): number {
  return changes.filter(test).length;
}

function insertionOrderTable(plan: Plan, deactivating: ReadonlySet<string>): string[] {
  const rows = groups(plan);
  if (rows.length === 0) return [];
  const deltas = new Map(
    plan.summary.insertion_orders.map((d) => [`insertion order ${d.insertion_order_id}`, d.lines]),
  );
  const out = [
    "| | creates | updates | deactivations | pauses | targetings | creatives | deltas |",
    "|---|--:|--:|--:|--:|--:|--:|---|",
  ];
  for (const { title, changes } of rows) {
    out.push(
      `| ${cell(title)} | ${count(changes, (c) => c.kind === "create_campaign")} | ${count(changes, (c) => c.kind === "update_campaign" || c.kind === "update_insertion_order" || c.kind === "update_creative")} | ${count(changes, (c) => deactivating.has(c.id))} | ${count(changes, (c) => c.kind === "replace_targetings" && c.pause)} | ${count(changes, (c) => c.kind === "replace_targetings")} | ${count(changes, (c) => c.kind === "associate_creative" || c.kind === "dissociate_creative")} | ${cell((deltas.get(title) ?? []).join("; "))} |`,
    );
  }
  return out;
}

/** The cost diff, first: what the plan does to the most each advertiser can spend. */
function spendTable(plan: Plan): string[] {
  const rows = spendRows(plan);
  if (rows.length === 0) return [];
  const remaining = rows.some((r) => r.remaining !== "");
  const out = [
    `| maximum spend | before | after | change${remaining ? " | left to spend" : ""} |`,
    `|---|--:|--:|--:${remaining ? "|--:" : ""}|`,
  ];
  for (const r of rows) {
    out.push(
      `| ${r.campaign ? "&emsp;" : ""}${cell(r.advertiser)} | ${r.before} | ${r.after} | **${r.change}**${remaining ? ` | ${r.remaining}` : ""} |`,
    );
  }
  return [...out, ""];
}

// Generators: the lines past the ~60,000-character cut are never made (10,000 changes are ~2 MB).
function* detailsBlock(plan: Plan): Generator<string> {
  for (const group of groups(plan)) {
    yield `# ${group.title}`;
    for (const change of group.changes) {
      yield `${KINDS[change.kind].marker} ${headline(change)}`;
      for (const d of detailLines(change)) yield `    ${d.marker} ${d.text}`;
    }
  }
}

function* requestRows(plan: Plan): Generator<string> {
  for (const r of plan.requests) {
    yield `| ${r.seq} | ${r.phase} ${PHASES[r.phase]} | \`${r.method} ${r.path}\` | ${cell(r.description)} | ${r.change_ids.join(", ")} |`;
  }
}

/** The lines after the summary; "details" and "requests" mark where each block opens. */
function* tailLines(plan: Plan): Generator<string> {
  if (plan.changes.length > 0) {
    yield "details";
    yield "\n<details><summary>Changes</summary>\n\n```diff";
    yield* detailsBlock(plan);
    yield "```\n</details>\n";
  }
  if (plan.requests.length > 0) {
    yield "requests";
    yield `\n<details><summary>Requests in apply order (${eta(plan)})</summary>\n\n| # | phase | request | what | changes |\n|--:|---|---|---|---|`;
    yield* requestRows(plan);
    yield "\n</details>\n";
  }
}

export function renderMarkdown(plan: Plan, options: MarkdownOptions): string {
  const max = options.maxChars ?? 60_000;
  const text = compose(plan, max, options.deactivating);
  if (text.length <= max) return text;
  // Safety net for very wide tables: cut at a line boundary.
  const cut = text.slice(0, max - TRUNCATED.length);
  return `${cut.slice(0, cut.lastIndexOf("\n") + 1)}${TRUNCATED}`;
}

function compose(plan: Plan, max: number, deactivating: ReadonlySet<string>): string {
  const errors = plan.findings.filter((f) => f.severity === "error");
  const head: string[] = [
    `### doohctl plan: ${plan.changes.length === 0 ? noChanges(plan) : actionCounts(plan)}`,
    "",
    ...guardrailNotes(plan),
    errors.length > 0
      ? `**${countOf(errors.length, "error")}: this plan cannot be applied.**`
      : `**${eta(plan)}**; ${countOf(plan.summary.read_requests, "read request")}. \`${plan.connection.api_origin}\` (${plan.connection.environment})${plan.targets.length > 0 ? `, narrowed to ${plan.targets.join(", ")}` : ""}.`,
    "",
    ...(darkTime(plan) && errors.length === 0 ? [`${darkTime(plan)}.`, ""] : []),
    ...scopedNote(plan),
    ...spendTable(plan),
    ...insertionOrderTable(plan, deactivating),
  ];
  if (plan.findings.length > 0) {
    head.push("", "#### Findings", "", "| severity | code | where | message |", "|---|---|---|---|");
    // Findings may be many (a pause per campaign): they get at most half the room.
    let used = head.join("\n").length;
    for (const [i, f] of plan.findings.entries()) {
      const at = f.source ? `${f.source.file}:${f.source.line}` : (f.address ?? "");
      const row = `| ${f.severity} | ${f.code} | ${cell(at)} | ${cell(f.message)} |`;
      if (used + row.length > max / 2) {
        head.push("", `… and ${plan.findings.length - i} more findings in the JSON artifact.`);
        break;
      }
      used += row.length + 1;
      head.push(row);
    }
  }
  const headText = `${head.join("\n")}\n`;
  // Assemble line by line, cutting the details (never the summary) when over the limit.
  let text = headText;
  let open: "details" | "requests" | undefined;
  for (const line of tailLines(plan)) {
    if (line === "details" || line === "requests") {
      open = line;
      continue;
    }
    const closing = open === "details" ? "```\n</details>\n" : "\n</details>\n";
    if (text.length + line.length + 1 + closing.length + TRUNCATED.length > max) {
      return `${text}${closing}${TRUNCATED}`;
    }
    text += `${line}\n`;
  }
  return text;
}
