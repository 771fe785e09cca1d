/**
 * One apply at a time per account on a machine. Two applies started together both plan
 * against the same live state; without a lock both would pass their checks and both send
 * (two people at once created one campaign twice). The lock serializes their writes: the
 * second waits, then its re-reads before each write (guard.ts) see the first one's changes
 * and stop it before it writes anything stale. Across machines the re-reads are the guard.
 *
 * The lock file holds host, pid, start time and a token; a lock whose process is gone (or that
 * was carried over from another machine with the state directory) is taken over. A lock with
 * this process's own host and pid is its own only by its token: in a CI container, the killed
 * job that left it had the same host name and often the same pid.
 */
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type { Clock } from "../model/clock.js";
import type { RecoveryScope } from "../model/recovery.js";
import { accountKey } from "./recovery.js";

interface LockFile {
  host: string;
  pid: number;
  started_at: string;
  /** Tells this process's locks from those of an earlier process with the same host and pid. */
  token?: string;
}

/** Tokens of the locks this process holds. */
const heldHere = new Set<string>();

export class ApplyLockError extends Error {
  override readonly name = "ApplyLockError";
  readonly code = "APPLY_LOCK_UNAVAILABLE";
}

function unusable(dir: string, error: unknown): ApplyLockError {
  return new ApplyLockError(
    `cannot take the apply lock in ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)}), so nothing was sent: make the state directory writable or set DOOHCTL_STATE_DIR`,
    { cause: error },
  );
}

export interface ApplyLock {
  release(): void;
}

function holderOf(path: string): LockFile | undefined {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as LockFile;
  } catch {
    return undefined;
  }
}

function alive(holder: LockFile): boolean {
  if (holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return holder.token !== undefined && heldHere.has(holder.token);
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A takeover left behind by a process that died in the middle of one (it takes microseconds). */
const STALE_TAKEOVER_MS = 10_000;

/**
 * Removes the lock at `path` if it is still a dead holder's (or still unreadable, when
 * `unreadable` says it has been for a while). Two waiters that both saw a crashed apply's lock
 * must not both remove "it": the second would remove the lock the first has just taken, and
 * both would run. So removal happens only under a takeover directory (mkdir is atomic), after
 * reading the holder again; only its owner's release() removes a live lock otherwise.
 * Returns false when another process is taking over right now.
 */
function takeOver(path: string, unreadable: boolean): boolean {
  const guard = `${path}.takeover`;
  try {
    mkdirSync(guard);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    try {
      // File times are wall-clock times, whatever clock the apply runs on.
      if (Date.now() - statSync(guard).mtimeMs > STALE_TAKEOVER_MS)
        rmSync(guard, { recursive: true, force: true });
    } catch {
      // gone meanwhile: the next round tries again
    }
    return false;
  }
  try {
    const holder = holderOf(path);
    if (holder ? !alive(holder) : unreadable) rmSync(path, { force: true });
    return true;
  } finally {
    rmSync(guard, { recursive: true, force: true });
  }
}

/**
 * Takes the account's apply lock, waiting (polling every second, `onWait` told once) while a
 * running apply on this machine holds it.
 */
export async function acquireApplyLock(input: {
  stateDir: string;
  scope: RecoveryScope;
  clock: Clock;
  signal?: AbortSignal | undefined;
  onWait?: (holder: { pid: number; started_at: string }) => void;
}): Promise<ApplyLock> {
  const key = accountKey(input.scope);
  const dir = join(input.stateDir, "locks");
  const path = join(dir, `${key}.lock`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw unusable(dir, error);
  }
  let told = false;
  let unreadable = 0;
  for (;;) {
    try {
      const fd = openSync(path, "wx", 0o600);
      const mine: LockFile = {
        host: hostname(),
        pid: process.pid,
        started_at: new Date(input.clock.now()).toISOString(),
        token: randomBytes(8).toString("hex"),
      };
      heldHere.add(mine.token!);
      writeSync(fd, JSON.stringify(mine));
      closeSync(fd);
      return {
        release: () => {
          heldHere.delete(mine.token!);
          if (holderOf(path)?.token === mine.token) rmSync(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw unusable(dir, error);
    }
    const holder = holderOf(path);
    if (!holder && ++unreadable < 5) {
      // Its owner may be between creating the file and writing it.
      await input.clock.sleep(200, input.signal);
      continue;
    }
    if (!holder || !alive(holder)) {
      // A crashed apply's lock: nobody will release it.
      if (!takeOver(path, !holder)) await input.clock.sleep(50, input.signal);
      continue;
    }
    if (!told) {
      input.onWait?.(holder);
      told = true;
    }
    await input.clock.sleep(1000, input.signal);
  }
}
