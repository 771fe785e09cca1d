/**
 * The apply result as text (I7): a summary; after a failure or interruption what was applied, what
 * failed and why (each field traced to its `file:line`) and what was not sent.
 */
import type {
  ApplyRequestRecord,
  ApplyResult,
  FieldFailure,
  LeftPausedCampaign,
  UnsentRequest,
} from "../model/apply-report.js";
import { count } from "../model/plural.js";
import { printable } from "../model/printable.js";
import { Time } from "../model/time.js";
import { campaignLabel } from "./format.js";
import { formatElapsed } from "./progress.js";

/** Per action: what one of it is, and what several are. */
const ACTION_LABELS: Record<string, [string, string]> = {
  update_insertion_order: ["insertion order updated", "insertion orders updated"],
  create_campaign: ["campaign created", "campaigns created"],
  update_campaign: ["campaign updated", "campaigns updated"],
  deactivate_campaign: ["campaign deactivated", "campaigns deactivated"],
  replace_targetings: ["targeting list replaced", "targeting lists replaced"],
  associate_creative: ["creative association added", "creative associations added"],
  dissociate_creative: ["creative association removed", "creative associations removed"],
  update_creative: ["creative updated", "creatives updated"],
};

/** Per action stopped part-way: what landed, so a reader knows what exists on the DSP now. */
const PARTLY_LABELS: Record<string, [string, string]> = {
  create_campaign: ["campaign created (not yet activated)", "campaigns created (not yet activated)"],
  replace_targetings: [
    "targeting list replacement partly applied",
    "targeting list replacements partly applied",
  ],
};

function appliedLine(record: ApplyRequestRecord): string {
  const attempts = record.attempts > 1 ? `, ${record.attempts} attempts` : "";
  return `  ${record.seq}. ${record.method} ${record.path}: ${printable(record.description)} -> ${record.status} in ${formatElapsed(record.duration_ms)}${attempts}${readBackText(record)}`;
}

/** A write whose answer could not be read: how its result was learnt instead. */
function readBackText(record: ApplyRequestRecord): string {
  if (record.unreadable_answer === undefined) return "";
  const how =
    record.learnt_ids !== undefined
      ? `new campaign ids learnt by name: ${record.learnt_ids.join(", ")}`
      : "the objects were read back";
  return `; its answer could not be read (${printable(record.unreadable_answer)}): ${how}`;
}

/** After a complete apply: the writes whose answers could not be read, and what was learnt. */
function readBackLines(result: ApplyResult): string[] {
  const unread = result.applied.filter((r) => r.unreadable_answer !== undefined);
  if (unread.length === 0) return [];
  return [
    `  ${count(unread.length, "answer")} could not be read; the result was learnt otherwise:`,
    ...unread.map((r) => `    ${appliedLine(r).trimStart()}`),
  ];
}

function unsentLine(request: UnsentRequest): string {
  return `  ${request.seq}. ${request.method} ${request.path}: ${printable(request.description)} (${count(request.items, "item")})`;
}

function fieldLines(field: FieldFailure): string[] {
  const lines = [`  ${printable(`${field.field}: ${field.messages.join("; ")}`)}`];
  const where = field.sources.map((s) => `${s.file}:${s.line}`);
  if (field.addresses.length > 0 || where.length > 0) {
    const from = where.length > 0 ? ` (${where.join(", ")})` : "";
    lines.push(`    from ${field.addresses.join(", ") || "the plan"}${from}`);
  }
  return lines;
}

export function summaryLines(result: ApplyResult): string[] {
  const s = result.summary;
  const actions = [
    ...Object.entries(s.actions)
      .filter(([, n]) => n > 0)
      .map(([kind, n]) => count(n, ...(ACTION_LABELS[kind] ?? [kind, kind]))),
    ...Object.entries(s.partly_applied ?? {})
      .filter(([, n]) => n > 0)
      .map(([kind, n]) =>
        count(n, ...(PARTLY_LABELS[kind] ?? [`${kind} partly applied`, `${kind} partly applied`])),
      ),
  ];
  return [
    `Applied ${s.applied_requests} of ${count(s.planned_requests, "request")} in ${Time.formatDuration(s.elapsed_ms)}.`,
    ...(actions.length > 0 ? [`  ${actions.join(", ")}`] : []),
    `  ${count(s.write_requests, "write request")}, ${count(s.read_requests, "read request")}, ${count(s.retries, "retry", "retries")}` +
      (s.rate_limited > 0 ? ` (${s.rate_limited} answered 429)` : ""),
  ];
}

/** I7: campaigns paused for a targeting change, restored on the way out or still dark. */
function leftPausedLines(result: ApplyResult): string[] {
  const paused = result.left_paused ?? [];
  const restored = result.restored ?? [];
  const lines: string[] = [];
  if (restored.length > 0) {
    lines.push(
      `Delivery restored: ${count(restored.length, "campaign")} this apply had paused for targeting changes ${restored.length === 1 ? "is" : "are"} active again (${restored.join(", ")}).`,
      "",
    );
  }
  if (paused.length === 0) return lines;
  const label = (p: LeftPausedCampaign) => `  ${campaignLabel(p)} (insertion order ${p.insertion_order_id})`;
  const confirmed = paused.filter((p) => p.pause_confirmed);
  const unconfirmed = paused.filter((p) => !p.pause_confirmed);
  return [
    ...lines,
    ...(confirmed.length > 0
      ? [
          `LEFT PAUSED by this apply (${confirmed.length}): paused to change their targetings, not reactivated:`,
          ...confirmed.map(label),
        ]
      : []),
    ...(unconfirmed.length > 0
      ? [
          `POSSIBLY LEFT PAUSED by this apply (${unconfirmed.length}): their pause was sent without a confirmed answer, and they were not reactivated:`,
          ...unconfirmed.map(label),
          "  The pausing request failed or was abandoned: doohctl plan shows whether they are active.",
        ]
      : []),
    ...(result.restore_error !== undefined ? [`  Reactivating them failed: ${result.restore_error}`] : []),
    "  The recovery record keeps them: the next doohctl plan or apply of this account plans their",
    "  reactivation (DOOH202), also where the config leaves `active` undeclared.",
    "",
  ];
}

function newIdLines(result: ApplyResult): string[] {
  const ids = Object.values(result.created);
  return ids.length > 0 ? [`  new campaign ids: ${ids.join(", ")}`] : [];
}

function journalLines(result: ApplyResult): string[] {
  if (result.journal_error === undefined) return [];
  return [
    `Warning: writing the apply log failed (${result.journal_error}); the log stops there and the`,
    "  apply went on without it: this report is the complete record.",
  ];
}

export function renderApplyReport(result: ApplyResult): string {
  const lines: string[] = [];
  const total = result.summary.planned_requests;
  if (result.status === "applied") {
    lines.push("Apply complete.", ...summaryLines(result));
    lines.push(...newIdLines(result), ...readBackLines(result), ...journalLines(result));
    return `${lines.join("\n")}\n`;
  }

  const failure = result.failure;
  if (failure) {
    const r = failure.request;
    const how = failure.landed
      ? `Apply stopped at request ${r.seq} of ${total}, which the DSP accepted`
      : `Apply failed at request ${r.seq} of ${total}`;
    lines.push(
      `${how}: ${r.method} ${r.path} (${printable(r.description)})`,
      `  ${failure.http_status !== undefined ? `${failure.http_status} ` : ""}${printable(failure.message)} [${failure.code}]`,
      ...failure.fields.flatMap(fieldLines),
    );
  } else {
    lines.push(`Apply interrupted after ${result.applied.length} of ${count(total, "request")}.`);
    if (result.abandoned) {
      const a = result.abandoned;
      lines.push(
        `  abandoned: ${a.seq}. ${a.method} ${a.path} (${printable(a.description)}), waiting or in flight when ` +
          "interrupted: doohctl plan shows whether it took effect",
      );
    }
  }
  lines.push(
    "",
    ...leftPausedLines(result),
    `Applied as sent (${result.applied.length}):`,
    ...result.applied.map(appliedLine),
  );
  if (result.applied.length === 0) lines.push("  none");
  if (failure?.landed) {
    const title = failure.inconsistent ? "Applied differently" : "Applied, result unknown";
    lines.push("", `${title} (1):`, appliedLine(failure.request));
  }
  lines.push("", `Not sent (${result.not_sent.length}):`, ...result.not_sent.map(unsentLine));
  if (result.not_sent.length === 0) lines.push("  none");
  lines.push(
    "",
    ...summaryLines(result),
    ...newIdLines(result),
    ...journalLines(result),
    "",
    "Run doohctl plan to see exactly what remains.",
  );
  return `${lines.join("\n")}\n`;
}
