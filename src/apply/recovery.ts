/**
 * The recovery record (design.md, Recovery record). Before apply sends a request that pauses
 * campaigns it will reactivate, it writes which ones to disk and fsyncs the file; once their
 * reactivation is confirmed it removes them. An apply that dies in between (SIGKILL, out of
 * memory, a lost CI runner) leaves the record behind, and every later plan and apply of the
 * same account reads it and plans the reactivation, even where the config leaves `active`
 * undeclared and the live `active: false` would otherwise be taken as desired.
 *
 * Layout: `<state dir>/recovery/<account key>/<apply id>.json`, one file per apply, so two
 * applies never write the same file; a file holds its owner's host and pid so a reader can
 * tell a running apply (which will reactivate its own campaigns) from a dead one.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { homedir, hostname } from "node:os";
import { join } from "node:path";
import type { RecordedPause, RecoveryScope } from "../model/recovery.js";

const FORMAT_VERSION = 1;

interface RecordFile {
  format_version: typeof FORMAT_VERSION;
  apply_id: string;
  origin: string;
  environment: string;
  user: string;
  host: string;
  pid: number;
  started_at: string;
  paused: Omit<RecordedPause, "apply_id" | "apply_started_at" | "owner_running">[];
}

export class RecoveryRecordError extends Error {
  override readonly name = "RecoveryRecordError";
  readonly code = "RECOVERY_RECORD_UNWRITABLE";
}

/** `DOOHCTL_STATE_DIR`, else `$XDG_STATE_HOME/doohctl`, else `~/.local/state/doohctl`. */
export function defaultStateDir(env: Readonly<Record<string, string | undefined>>): string {
  if (env.DOOHCTL_STATE_DIR) return env.DOOHCTL_STATE_DIR;
  return join(env.XDG_STATE_HOME || join(env.HOME || homedir(), ".local", "state"), "doohctl");
}

/** A file name for an account: no user name or origin on disk outside the files themselves. */
export function accountKey(scope: RecoveryScope): string {
  return createHash("sha256")
    .update(`${scope.origin}\n${scope.environment}\n${scope.user}`)
    .digest("hex")
    .slice(0, 24);
}

function accountDir(stateDir: string, scope: RecoveryScope): string {
  return join(stateDir, "recovery", accountKey(scope));
}

/** Writes `text` to `path` so that it is on disk before this returns: temp file, fsync, rename, fsync dir. */
function writeDurably(path: string, dir: string, text: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, "w", 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  try {
    const dirFd = openSync(dir, "r");
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  } catch {
    // Some filesystems refuse to fsync a directory; the file itself is synced.
  }
}

/** Applies begun by this process: a record with its host and pid is its own only if listed. */
const begunHere = new Set<string>();

function isRunning(file: RecordFile): boolean {
  if (file.host !== hostname()) return false;
  // In a CI container the killed job that wrote it had the same host name and often this pid.
  if (file.pid === process.pid) return begunHere.has(file.apply_id);
  try {
    process.kill(file.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * A record file this version cannot use (damaged, edited by hand, written by a newer doohctl).
 * The campaigns it lists may still be paused, so it is reported, never passed over in silence,
 * and left on disk for the user.
 */
export interface UnreadableRecord {
  path: string;
  reason: string;
}

interface RecordFiles {
  records: { path: string; file: RecordFile }[];
  unreadable: UnreadableRecord[];
}

function readFiles(dir: string): RecordFiles {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".json"));
  } catch (error) {
    // No directory: no apply of this account ever paused anything here.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { records: [], unreadable: [] };
    return { records: [], unreadable: [{ path: dir, reason: (error as Error).message }] };
  }
  const found: RecordFiles = { records: [], unreadable: [] };
  for (const name of names.sort()) {
    const path = join(dir, name);
    const file = recordFileOf(path);
    if (typeof file === "string") found.unreadable.push({ path, reason: file });
    else if (file !== undefined) found.records.push({ path, file });
  }
  return found;
}

/**
 * The file's record, or why it is not one this version can act on (trust nothing read), or
 * undefined when it is gone: its apply removed it, every campaign in it active again, after
 * the directory was listed.
 */
function recordFileOf(path: string): RecordFile | string | undefined {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return error instanceof SyntaxError ? "not JSON" : (error as Error).message;
  }
  const file = data as Partial<RecordFile> | null;
  if (file === null || typeof file !== "object") return "not a recovery record";
  if (file.format_version !== FORMAT_VERSION) {
    return `format_version ${JSON.stringify(file.format_version)}, this doohctl reads ${FORMAT_VERSION}`;
  }
  const text = (v: unknown) => typeof v === "string" && v !== "";
  // The host may be empty: some machines report no hostname, and their records are still theirs.
  const host = typeof file.host === "string";
  if (!text(file.apply_id) || !host || !text(file.started_at) || !Number.isInteger(file.pid)) {
    return "apply_id, host, pid or started_at is missing";
  }
  const entry = (p: Partial<RecordedPause> | null) =>
    p !== null &&
    typeof p === "object" &&
    text(p.campaign_id) &&
    text(p.insertion_order_id) &&
    text(p.paused_at);
  if (!Array.isArray(file.paused) || !file.paused.every(entry))
    return "paused is not a list of recorded campaigns";
  return file as RecordFile;
}

/** The record of one account in one state directory. */
export class RecoveryStore {
  private readonly dir: string;

  constructor(
    stateDir: string,
    private readonly scope: RecoveryScope,
  ) {
    this.dir = accountDir(stateDir, scope);
  }

  /** Every recorded pause of this account, oldest apply first (see `unreadable` for the rest). */
  read(): RecordedPause[] {
    return this.readAll().pauses;
  }

  /** The account's record files that `read` could not use: to be reported, never skipped. */
  unreadable(): UnreadableRecord[] {
    return this.readAll().unreadable;
  }

  /** `read` and `unreadable` from one reading of the directory. */
  readAll(): { pauses: RecordedPause[]; unreadable: UnreadableRecord[] } {
    const { records, unreadable } = readFiles(this.dir);
    const pauses = records.flatMap(({ file }) => {
      const running = isRunning(file);
      return file.paused.map((p) => ({
        ...p,
        apply_id: file.apply_id,
        apply_started_at: file.started_at,
        owner_running: running,
      }));
    });
    return { pauses, unreadable };
  }

  /**
   * Removes the entries of these campaigns from the records of applies that no longer run
   * (and from this process's own): their campaigns are active again, gone, or reactivated by
   * this run. A running apply's file is its own to change.
   */
  drop(campaignIds: Iterable<string>): void {
    const ids = new Set(campaignIds);
    if (ids.size === 0) return;
    for (const { path, file } of readFiles(this.dir).records) {
      if (file.pid !== process.pid && isRunning(file)) continue;
      const kept = file.paused.filter((p) => !ids.has(p.campaign_id));
      if (kept.length === file.paused.length) continue;
      if (kept.length === 0) rmSync(path, { force: true });
      else writeDurably(path, this.dir, `${JSON.stringify({ ...file, paused: kept }, null, 2)}\n`);
    }
  }

  /** A record for one apply run: entries are added before pauses and removed after reactivations. */
  begin(startedAt: string): ApplyRecovery {
    return new ApplyRecovery(this.dir, this.scope, startedAt);
  }
}

/** One apply's own record file. */
export class ApplyRecovery {
  readonly applyId: string;
  private readonly path: string;
  private paused: RecordFile["paused"] = [];

  constructor(
    private readonly dir: string,
    private readonly scope: RecoveryScope,
    private readonly startedAt: string,
  ) {
    const stamp = startedAt.replace(/[-:.]/g, "");
    this.applyId = `${stamp}-${process.pid}-${randomBytes(3).toString("hex")}`;
    begunHere.add(this.applyId);
    this.path = join(dir, `${this.applyId}.json`);
  }

  /**
   * The apply is over (returned or threw): what its record still holds is left to the next
   * plan, also in this process (a long-lived caller, a test run), which would otherwise take
   * it for a running apply's and leave the campaigns paused (DOOH203).
   */
  end(): void {
    begunHere.delete(this.applyId);
  }

  /** Campaigns currently recorded by this apply. */
  pending(): string[] {
    return this.paused.map((p) => p.campaign_id);
  }

  /** Durably records these campaigns; throws (and nothing may be sent) when it cannot. */
  add(entries: RecordFile["paused"]): void {
    const known = new Set(this.pending());
    const fresh = entries.filter((e) => !known.has(e.campaign_id));
    if (fresh.length === 0) return;
    this.paused = [...this.paused, ...fresh];
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.write();
    } catch (error) {
      this.paused = this.paused.slice(0, this.paused.length - fresh.length);
      throw new RecoveryRecordError(
        `cannot write the recovery record in ${this.dir} (${(error as NodeJS.ErrnoException).code ?? String(error)}), so no campaign was paused: make the state directory writable or set DOOHCTL_STATE_DIR`,
        { cause: error },
      );
    }
  }

  /** Removes reactivated campaigns; the file goes when nothing is left. */
  remove(campaignIds: Iterable<string>): void {
    const ids = new Set(campaignIds);
    const kept = this.paused.filter((p) => !ids.has(p.campaign_id));
    if (kept.length === this.paused.length) return;
    this.paused = kept;
    if (kept.length === 0) rmSync(this.path, { force: true });
    else this.write();
  }

  private write(): void {
    const file: RecordFile = {
      format_version: FORMAT_VERSION,
      apply_id: this.applyId,
      origin: this.scope.origin,
      environment: this.scope.environment,
      user: this.scope.user,
      host: hostname(),
      pid: process.pid,
      started_at: this.startedAt,
      paused: this.paused,
    };
    writeDurably(this.path, this.dir, `${JSON.stringify(file, null, 2)}\n`);
  }
}
