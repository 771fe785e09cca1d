/**
 * The recovery record (docs/safety.md, Recovery record): before a request pauses campaigns, apply
 * writes them to disk (fsynced), and removes them once reactivated. An apply that dies between
 * (SIGKILL, a lost CI runner) leaves it, and every later plan of the account, by any API user,
 * reactivates them, even with `active` undeclared.
 * `<state dir>/recovery/<account key>/<apply id>.json`: one file per apply; the key hashes origin,
 * environment, G9's `account_id` and a configured account's name; the file's lease (lease.ts)
 * tells a running apply from a stopped one.
 */
import { createHash, randomBytes } from "node:crypto";
import { readdirSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { writeFileAtomicSync } from "../api/atomic-write.js";
import { privateDir, readPrivateFile, StateDirError } from "../api/private-files.js";
import { type Clock, systemClock } from "../model/clock.js";
import type { RecordedPause, RecordHolder, RecordIssue, RecoveryScope } from "../model/recovery.js";
import { type Lease, leaseExpiry, leaseFresh, ownLease, renewEvery } from "./lease.js";
import {
  entriesOf,
  entryOf,
  FORMAT_VERSION,
  foreignTo,
  type PauseEntry,
  type RecordFile,
  recordFileOf,
} from "./record-file.js";
import { renamedRecords } from "./record-renamed.js";

export class RecoveryRecordError extends Error {
  override readonly name = "RecoveryRecordError";
  readonly code = "RECOVERY_RECORD_UNWRITABLE";
}

/**
 * The state directory, checked before use: `DOOHCTL_STATE_DIR`, else `$XDG_STATE_HOME/doohctl`
 * (a relative one ignored, as XDG says), else `~/.local/state/doohctl`. A relative
 * `DOOHCTL_STATE_DIR` is refused: another working directory would not see the record
 * (docs/apply.md). It must be the user's own, 0700: a user who could write there could hide a
 * paused campaign (StateDirError). The first record creates a missing one.
 */
export function checkedStateDir(env: Readonly<Record<string, string | undefined>>): string {
  const set = env.DOOHCTL_STATE_DIR;
  if (set && !isAbsolute(set)) {
    throw new StateDirError(
      `DOOHCTL_STATE_DIR=${set} is a relative path: runs from another working directory would not see this run's recovery record; set an absolute path, e.g. DOOHCTL_STATE_DIR="$PWD/${set}"`,
    );
  }
  const xdg = env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : undefined;
  const dir = set || join(xdg ?? join(env.HOME || homedir(), ".local", "state"), "doohctl");
  privateDir(dir, { create: false });
  return dir;
}

/**
 * Campaigns the records here, of any account, hold paused by a stopped apply: read without login
 * or config, so a refusal that cannot settle the record can say some may be dark. Read as the
 * store reads; what is unreadable counts nothing (this only decides whether to say more).
 */
export function stoppedPausesOnDisk(stateDir: string, now: number): number {
  const root = join(stateDir, "recovery");
  let count = 0;
  try {
    if (!privateDir(root, { create: false })) return 0;
    for (const key of readdirSync(root)) {
      const dir = join(root, key);
      try {
        if (!privateDir(dir, { create: false })) continue;
        for (const name of readdirSync(dir).filter((n) => n.endsWith(".json"))) {
          count += stoppedPausesIn(join(dir, name), now);
        }
      } catch {
        // Not a directory of records, or one not safe to read: it says nothing here.
      }
    }
  } catch {
    return count;
  }
  return count;
}

/** The entries of one record file whose apply no longer runs; 0 for a file not safe to read. */
function stoppedPausesIn(path: string, now: number): number {
  try {
    const source = readPrivateFile(path);
    const file = source === undefined ? undefined : recordFileOf(source);
    if (file === undefined || typeof file === "string") return 0;
    if (leaseFresh(file.lease, now, () => begunHere.has(file.apply_id))) return 0;
    return entriesOf(path, file).entries.length;
  } catch {
    return 0;
  }
}

/** A file name for an account: neither origin nor account id on disk outside the files themselves. */
export function accountKey(scope: RecoveryScope): string {
  // The single account keeps the key it always had: its records and lock stay where they are.
  const named = scope.account === undefined ? "" : `\naccount ${scope.account}`;
  return createHash("sha256")
    .update(`${scope.origin}\n${scope.environment}\n${scope.account_id}${named}`)
    .digest("hex")
    .slice(0, 24);
}

/** Applies begun by this process: a lease with its host and pid is its own only if listed. */
const begunHere = new Set<string>();

/** What one reading of the account's directory found. */
export interface RecordRead {
  /** Every usable entry of this account, oldest apply first. */
  pauses: RecordedPause[];
  /** Files and entries not acted on (reported, never dropped or deleted). */
  issues: RecordIssue[];
}

interface ReadFile {
  path: string;
  file: RecordFile;
  entries: PauseEntry[];
}

/** The record of one account in one state directory. */
export class RecoveryStore {
  private readonly stateDir: string;
  private readonly root: string;
  private readonly dir: string;
  private readonly clock: Clock;

  private readonly legacyDir: string | undefined;

  /**
   * `legacyUser`: the API user logging in, whose records an earlier doohctl kept (format 1,
   * keyed by user): they are reported, never skipped in silence.
   */
  constructor(
    stateDir: string,
    readonly scope: RecoveryScope,
    options: { clock?: Clock; legacyUser?: string | undefined } = {},
  ) {
    this.stateDir = stateDir;
    this.root = join(stateDir, "recovery");
    this.dir = join(this.root, accountKey(scope));
    this.clock = options.clock ?? systemClock;
    this.legacyDir =
      options.legacyUser === undefined
        ? undefined
        : join(
            this.root,
            createHash("sha256")
              .update(`${scope.origin}\n${scope.environment}\n${options.legacyUser}`)
              .digest("hex")
              .slice(0, 24),
          );
  }

  /** Every recorded pause of this account, oldest apply first (see `readAll` for the rest). */
  read(): RecordedPause[] {
    return this.readAll().pauses;
  }

  /** One reading of the directory. Throws StateDirError when it is not the user's own, 0700. */
  readAll(): RecordRead {
    const { files, issues } = this.files();
    const pauses = files.flatMap(({ path, file, entries }) => {
      const running = this.running(file);
      const holder: RecordHolder = {
        host: file.lease.host,
        pid: file.lease.pid,
        lease_expires_at: new Date(leaseExpiry(file.lease)).toISOString(),
      };
      return entries.map((p) => ({
        ...p,
        apply_id: file.apply_id,
        apply_started_at: file.started_at,
        owner_running: running,
        ...(running ? { holder } : {}),
        path,
      }));
    });
    return { pauses, issues };
  }

  /**
   * Removes these campaigns' entries (active again, gone, or reactivated) from stopped applies'
   * records and this process's own; a running apply's file is its own, unreadable entries stay.
   */
  drop(campaignIds: Iterable<string>): void {
    const ids = new Set(campaignIds);
    if (ids.size === 0) return;
    for (const { path, file } of this.files().files) {
      if (this.running(file) && !begunHere.has(file.apply_id)) continue;
      const kept = file.paused.filter((value) => {
        const entry = entryOf(value);
        return typeof entry === "string" || !ids.has(entry.campaign_id);
      });
      if (kept.length === file.paused.length) continue;
      if (kept.length === 0) rmSync(path, { force: true });
      else writeFileAtomicSync(path, `${JSON.stringify({ ...file, paused: kept }, null, 2)}\n`);
    }
  }

  /** A record for one apply run: entries are added before pauses and removed after reactivations. */
  begin(startedAt: string): ApplyRecovery {
    return new ApplyRecovery({
      stateDir: this.stateDir,
      root: this.root,
      dir: this.dir,
      scope: this.scope,
      startedAt,
      clock: this.clock,
    });
  }

  private running(file: RecordFile): boolean {
    return leaseFresh(file.lease, this.clock.now(), () => begunHere.has(file.apply_id));
  }

  private files(): { files: ReadFile[]; issues: RecordIssue[] } {
    // No directory: no apply of this account ever paused anything here.
    if (!privateDir(this.root, { create: false })) return { files: [], issues: [] };
    const issues = [...this.legacyIssues(), ...renamedRecords(this.root, this.dir, this.scope)];
    if (!privateDir(this.dir, { create: false })) return { files: [], issues };
    const files: ReadFile[] = [];
    const names = readdirSync(this.dir)
      .filter((n) => n.endsWith(".json"))
      .sort();
    for (const name of names) {
      const path = join(this.dir, name);
      let source: string | undefined;
      try {
        source = readPrivateFile(path);
      } catch (error) {
        issues.push({ path, kind: "unreadable", reason: (error as Error).message });
        continue;
      }
      // Gone since the listing: its apply removed it, every campaign in it active again.
      if (source === undefined) continue;
      const file = recordFileOf(source);
      if (typeof file === "string") {
        issues.push({ path, kind: "unreadable", reason: file });
        continue;
      }
      const foreign = foreignTo(file, this.scope);
      if (foreign !== undefined) {
        issues.push({ path, kind: "foreign", reason: foreign });
        continue;
      }
      const { entries, issues: bad } = entriesOf(path, file);
      for (const issue of bad) issues.push(issue);
      files.push({ path, file, entries });
    }
    return { files, issues };
  }
  /** Record files an earlier doohctl kept for this API user (format 1): reported, never read. */
  private legacyIssues(): RecordIssue[] {
    if (this.legacyDir === undefined) return [];
    let names: string[];
    try {
      names = readdirSync(this.legacyDir).filter((n) => n.endsWith(".json"));
    } catch {
      return [];
    }
    return names.sort().map((name) => ({
      path: join(this.legacyDir!, name),
      kind: "unreadable" as const,
      reason: "written by an earlier doohctl, whose record format 1 this one does not read",
    }));
  }
}

/** One apply's own record file, with the lease it renews while it runs. */
export class ApplyRecovery {
  readonly applyId: string;
  private readonly path: string;
  private paused: PauseEntry[] = [];
  private renewal: { stop(): void } | undefined;

  constructor(
    private readonly at: {
      stateDir: string;
      root: string;
      dir: string;
      scope: RecoveryScope;
      startedAt: string;
      clock: Clock;
    },
  ) {
    const stamp = at.startedAt.replace(/[-:.]/g, "");
    this.applyId = `${stamp}-${process.pid}-${randomBytes(3).toString("hex")}`;
    begunHere.add(this.applyId);
    this.path = join(at.dir, `${this.applyId}.json`);
  }

  /**
   * The apply is over: its lease stops, and what its record holds is left to the next plan, also in
   * this process, which would otherwise take it for a running apply's (DOOH203).
   */
  end(): void {
    this.renewal?.stop();
    this.renewal = undefined;
    begunHere.delete(this.applyId);
  }

  /** Campaigns currently recorded by this apply. */
  pending(): string[] {
    return this.paused.map((p) => p.campaign_id);
  }

  /** Durably records these campaigns; throws (and nothing may be sent) when it cannot. */
  add(entries: PauseEntry[]): void {
    const known = new Set(this.pending());
    const fresh = entries.filter((e) => !known.has(e.campaign_id));
    if (fresh.length === 0) return;
    this.paused = [...this.paused, ...fresh];
    try {
      for (const dir of [this.at.stateDir, this.at.root, this.at.dir]) privateDir(dir, { create: true });
      this.write();
    } catch (error) {
      this.paused = this.paused.slice(0, this.paused.length - fresh.length);
      if (error instanceof StateDirError) {
        throw new RecoveryRecordError(`no campaign was paused: ${error.message}`, { cause: error });
      }
      throw new RecoveryRecordError(
        `cannot write the recovery record in ${this.at.dir} (${(error as NodeJS.ErrnoException).code ?? String(error)}), so no campaign was paused: make the state directory writable or set DOOHCTL_STATE_DIR`,
        { cause: error },
      );
    }
    this.renewal ??= renewEvery(this.at.clock, () => {
      if (this.paused.length > 0) this.write();
    });
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
    const lease: Lease = ownLease(this.at.clock);
    const file: RecordFile = {
      format_version: FORMAT_VERSION,
      apply_id: this.applyId,
      origin: this.at.scope.origin,
      environment: this.at.scope.environment,
      account_id: this.at.scope.account_id,
      ...(this.at.scope.account !== undefined ? { account: this.at.scope.account } : {}),
      started_at: this.at.startedAt,
      lease,
      paused: this.paused,
    };
    writeFileAtomicSync(this.path, `${JSON.stringify(file, null, 2)}\n`);
  }
}
