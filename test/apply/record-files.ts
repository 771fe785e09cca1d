/**
 * A recovery record on disk for the record's tests (src/apply/recovery.ts): an account, its
 * entries, and edits of its files as a crash, a planted record or another host would leave them.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { accountKey } from "../../src/apply/recovery.js";

export const SCOPE = { origin: "https://dsp.example.com", environment: "production", account_id: "7" };
export const STARTED = "2026-11-23T10:00:00.000Z";

export function entry(id: string) {
  return { campaign_id: id, insertion_order_id: "1001", name: `Campaign ${id}`, paused_at: STARTED };
}

export function stateDir(): string {
  return mkdtempSync(join(tmpdir(), "doohctl-recovery-"));
}

export function accountDir(dir: string): string {
  return join(dir, "recovery", accountKey(SCOPE));
}

export function filesOf(dir: string): string[] {
  try {
    return readdirSync(accountDir(dir)).sort();
  } catch {
    return [];
  }
}

/** Rewrites every record file of the account (an edit, a crash, a planted record). */
export function rewrite(dir: string, edit: (file: Record<string, unknown>) => Record<string, unknown>): void {
  for (const name of readdirSync(accountDir(dir))) {
    const path = join(accountDir(dir), name);
    writeFileSync(path, JSON.stringify(edit(JSON.parse(readFileSync(path, "utf8")))));
  }
}

/** Gives every record file of the account this lease (fields over the written one). */
export function leased(dir: string, lease: Record<string, unknown>): void {
  rewrite(dir, (file) => ({ ...file, lease: { ...(file.lease as object), ...lease } }));
}
