/** The recovery record's settling (`apply --restore-only`, or before an apply refuses): text and JSON. */
import { count as countOf } from "../model/plural.js";
import { printable } from "../model/printable.js";
import type { RecordedPause, RecordSettled } from "../model/recovery.js";

/** Raise on any incompatible change of the document (docs/apply.md, Restoring only). */
export const RESTORE_FORMAT_VERSION = 1;

const campaign = (e: RecordedPause) =>
  `campaign ${e.campaign_id} "${printable(e.name)}" (insertion order ${e.insertion_order_id})`;

const count = (n: number) => countOf(n, "campaign");

/** True when something recorded may still be dark and no running apply will restore it. */
export function restoreIncomplete(settled: RecordSettled): boolean {
  return settled.not_restored.length > 0 || settled.undeclared.length > 0 || settled.unreadable.length > 0;
}

export function renderRestoreText(settled: RecordSettled): string {
  const lines: string[] = [];
  const list = (head: string, entries: readonly RecordedPause[], tail = (_: RecordedPause) => "") => {
    if (entries.length === 0) return;
    lines.push(head);
    for (const e of entries) lines.push(`  ${campaign(e)}${tail(e)}`);
  };
  list(
    `Recovery record: reactivated ${count(settled.reactivated.length)} an apply that stopped left paused:`,
    settled.reactivated,
  );
  list(
    `Recovery record: left inactive, as the config declares (${count(settled.declared_inactive.length)}; their entries are settled):`,
    settled.declared_inactive,
  );
  list(
    `Recovery record: left to the apply still running that paused them (${count(settled.held.length)}):`,
    settled.held,
    (e) => ` by apply ${e.apply_id} (host ${printable(e.holder?.host || "unnamed")}, pid ${e.holder?.pid})`,
  );
  list(
    `Recovery record: NOT RESTORED (${count(settled.not_restored.length)}): ${printable(settled.error ?? "")}`,
    settled.not_restored,
  );
  if (settled.not_restored.length > 0)
    lines.push("  The record keeps them: run doohctl apply --restore-only again.");
  list(
    `Recovery record: NOT CHECKED, of insertion orders this config does not declare (${count(settled.undeclared.length)}; they may still be paused):`,
    settled.undeclared,
  );
  if (settled.undeclared.length > 0)
    lines.push("  Run doohctl apply --restore-only with the config that declares them.");
  for (const u of settled.unreadable)
    lines.push(
      `Recovery record: ${printable(u.path)} cannot be read (${printable(u.reason)}): campaigns it lists may still be paused (DOOH206).`,
    );
  if (lines.length === 0) lines.push("Recovery record: no campaign recorded as paused is left to restore.");
  return `${lines.join("\n")}\n`;
}

export function renderRestoreJson(settled: RecordSettled): string {
  const entry = (e: RecordedPause) => ({
    campaign_id: e.campaign_id,
    insertion_order_id: e.insertion_order_id,
    name: e.name,
    apply_id: e.apply_id,
    paused_at: e.paused_at,
    ...(e.holder ? { holder: e.holder } : {}),
  });
  const document = {
    format_version: RESTORE_FORMAT_VERSION,
    status: restoreIncomplete(settled) ? "incomplete" : "restored",
    reactivated: settled.reactivated.map(entry),
    declared_inactive: settled.declared_inactive.map(entry),
    held: settled.held.map(entry),
    not_restored: settled.not_restored.map(entry),
    undeclared: settled.undeclared.map(entry),
    ...(settled.error !== undefined ? { error: settled.error } : {}),
    unreadable: settled.unreadable.map((u) => ({ path: u.path, reason: u.reason })),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
