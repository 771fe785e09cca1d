/**
 * pull's output (docs/pull.md, Output): the live pauses, a unified diff per file, what was not pulled
 * and why; JSON the same facts. Only a diff's lines start with -, +, a space or @ (scripts take it).
 */

import { count } from "../model/plural.js";
import { printable } from "../model/printable.js";
import type { PullResult } from "../pull/pull.js";

export interface PullOutcome extends PullResult {
  /** Files written (none with --check). */
  written: string[];
  check: boolean;
}

export const PULL_FORMAT_VERSION = 1;

export function renderPullText(outcome: PullOutcome): string {
  const lines: string[] = [];
  for (const p of outcome.livePauses) {
    lines.push(
      `paused live while in flight: ${p.address} (campaign ${p.campaign_id}) at ${p.file}:${p.line}: pulled as active: false; if nobody meant it, run doohctl apply instead`,
    );
  }
  if (lines.length > 0) lines.push("");
  // Addresses, reasons and the files' lines hold DSP text: each line printable, none forged.
  let text = lines.map(printable).join("\n");
  // A diff's lines each printable: a file's line holds no line break; a raw CR or ESC shows escaped.
  for (const f of outcome.files) text += f.diff.split("\n").map(printable).join("\n");
  const tail: string[] = [];
  for (const p of outcome.pulled)
    if (p.note) tail.push(`note: ${p.address} ${p.field} (${p.file}:${p.line}): ${p.note}`);
  for (const a of outcome.appended)
    tail.push(`appended: ${a.address} (campaign ${a.campaign_id}) to ${a.file}`);
  for (const n of outcome.notPulled) {
    const where = n.file ? ` (${n.file}${n.line ? `:${n.line}` : ""})` : "";
    tail.push(`not pulled: ${n.address}${n.field ? ` ${n.field}` : ""}${where}: ${n.reason}`);
  }
  const changed = outcome.files.length;
  // Never "match" while something was refused: the summary says what was not pulled.
  const refused =
    outcome.notPulled.length > 0 ? `; ${count(outcome.notPulled.length, "item")} not pulled (above)` : "";
  if (changed === 0 && refused === "")
    tail.push("pull: the config files match the live state: nothing to write");
  else if (changed === 0) tail.push(`pull: nothing written${refused}`);
  else if (outcome.check)
    tail.push(`pull --check: ${count(changed, "file")} would change; nothing written${refused}`);
  else {
    const values = outcome.pulled.filter((p) => outcome.written.includes(p.file)).length;
    tail.push(
      `pull: ${count(values, "value")} written to ${count(outcome.written.length, "file")}${refused}`,
    );
  }
  return `${text}${tail.map(printable).join("\n")}\n`;
}

export function renderPullJson(outcome: PullOutcome): string {
  const value = {
    format_version: PULL_FORMAT_VERSION,
    check: outcome.check,
    live_pauses: outcome.livePauses,
    files: outcome.files.map((f) => ({
      file: f.file,
      written: outcome.written.includes(f.file),
      diff: f.diff,
    })),
    pulled: outcome.pulled,
    appended: outcome.appended,
    not_pulled: outcome.notPulled,
  };
  return `${JSON.stringify(value, null, 2)}\n`;
}
