/**
 * One apply's recovery record file (docs/safety.md, Recovery record). A reader trusts nothing:
 * the header must name this account, and each entry is checked alone, so one bad entry spares the rest.
 */
import type { RecordedPause, RecordIssue, RecoveryScope } from "../model/recovery.js";
import { type Lease, leaseOf } from "./lease.js";

export const FORMAT_VERSION = 2;

/** What one entry of `paused` holds on disk. */
export type PauseEntry = Pick<RecordedPause, "campaign_id" | "insertion_order_id" | "name" | "paused_at">;

export interface RecordFile {
  format_version: typeof FORMAT_VERSION;
  apply_id: string;
  origin: string;
  environment: string;
  account_id: string;
  /** `connection.account`, when the repository holds several; absent for the single account. */
  account?: string;
  started_at: string;
  /** Renewed every 5 s while the apply runs (lease.ts). */
  lease: Lease;
  /** As read: entries are checked one by one (`entriesOf`), and kept as they are when rewritten. */
  paused: unknown[];
}

const text = (v: unknown): v is string => typeof v === "string" && v !== "";

/** The entry, or why it is not one. */
export function entryOf(value: unknown): PauseEntry | string {
  const p = value as Partial<PauseEntry> | null;
  if (p === null || typeof p !== "object") return "not an object";
  for (const key of ["campaign_id", "insertion_order_id", "name", "paused_at"] as const) {
    if (!text(p[key])) return `${key} is missing`;
  }
  return {
    campaign_id: p.campaign_id!,
    insertion_order_id: p.insertion_order_id!,
    name: p.name!,
    paused_at: p.paused_at!,
  };
}

/** The file's header checked (format, apply, lease, account), or why this version cannot act on it. */
export function recordFileOf(source: string): RecordFile | string {
  let data: unknown;
  try {
    data = JSON.parse(source);
  } catch {
    return "not JSON";
  }
  const file = data as Partial<RecordFile> | null;
  if (file === null || typeof file !== "object" || Array.isArray(file)) return "not a recovery record";
  if (file.format_version !== FORMAT_VERSION) {
    return `format_version ${JSON.stringify(file.format_version)}, this doohctl reads ${FORMAT_VERSION}`;
  }
  if (!text(file.apply_id) || !text(file.started_at)) return "apply_id or started_at is missing";
  if (!text(file.origin) || !text(file.environment) || !text(file.account_id)) {
    return "origin, environment or account_id is missing";
  }
  if (leaseOf(file.lease) === undefined) return "lease is missing or not a lease";
  if (!Array.isArray(file.paused)) return "paused is not a list";
  return file as RecordFile;
}

/** Why the file is another account's (never obeyed), or undefined when it is this one's. */
export function foreignTo(file: RecordFile, scope: RecoveryScope): string | undefined {
  const other: string[] = [];
  if (file.origin !== scope.origin) other.push(`origin ${file.origin}`);
  if (file.environment !== scope.environment) other.push(`environment ${file.environment}`);
  if (file.account_id !== scope.account_id) other.push(`account ${file.account_id}`);
  // A file copied into another configured account's directory is that account's, not this one's.
  if (file.account !== scope.account) other.push(`configured account ${file.account ?? "(none)"}`);
  return other.length > 0
    ? `it names ${other.join(", ")}, not this run's ${scope.origin} (${scope.environment}, account ${scope.account_id}): never obeyed, left on disk`
    : undefined;
}

/** The file's good entries, and an issue for each entry that is not one. */
export function entriesOf(path: string, file: RecordFile): { entries: PauseEntry[]; issues: RecordIssue[] } {
  const entries: PauseEntry[] = [];
  const issues: RecordIssue[] = [];
  file.paused.forEach((value, index) => {
    const entry = entryOf(value);
    if (typeof entry === "string") {
      issues.push({ path, kind: "unreadable", reason: `entry ${index + 1} of "paused": ${entry}` });
    } else entries.push(entry);
  });
  return { entries, issues };
}
