/**
 * Records of this DSP account under another configured account name (docs/safety.md, Keeping two
 * accounts apart; `connection.account` renamed, added or dropped): never obeyed, since two
 * configured accounts may share a DSP account, but reported: their campaigns may still be paused.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { readPrivateFile } from "../api/private-files.js";
import type { RecordIssue, RecoveryScope } from "../model/recovery.js";
import { recordFileOf } from "./record-file.js";

/** Every record file under `root` (the state dir's `recovery/`) of this DSP account under another name. */
export function renamedRecords(root: string, ownDir: string, scope: RecoveryScope): RecordIssue[] {
  const issues: RecordIssue[] = [];
  for (const key of listed(root)) {
    const dir = join(root, key);
    if (dir === ownDir) continue;
    for (const name of listed(dir).filter((n) => n.endsWith(".json"))) {
      const path = join(dir, name);
      let source: string | undefined;
      try {
        source = readPrivateFile(path);
      } catch {
        continue; // a link or no regular file: not a record this version wrote
      }
      const file = source === undefined ? "gone" : recordFileOf(source);
      if (typeof file === "string") continue;
      const same =
        file.origin === scope.origin &&
        file.environment === scope.environment &&
        file.account_id === scope.account_id;
      if (!same || file.account === scope.account || file.paused.length === 0) continue;
      const was =
        file.account === undefined
          ? "the single account (no connection.account)"
          : `configured account ${file.account}`;
      const now = scope.account === undefined ? "the single account" : `configured account ${scope.account}`;
      issues.push({
        path,
        kind: "foreign",
        reason: `written by an apply of ${was} on this DSP account, not of this run's ${now}: never obeyed here, left on disk. ${file.paused.length === 1 ? "Its campaign" : `Its ${file.paused.length} campaigns`} may still be paused: if this account was renamed from it (connection.account changed, added or removed), apply once with the old connection.account, whose plan reactivates them, or check them with \`doohctl status --all\` and set them active, then remove the file`,
      });
    }
  }
  return issues;
}

function listed(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}
