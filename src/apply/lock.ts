/**
 * One apply at a time per account, machine and OS user (docs/safety.md, Two applies at once): two
 * applies planned on one state would both pass their checks and send (one campaign created
 * twice). The second waits, then its re-reads (guard.ts) see the first's changes and stop it.
 * The lock is per user, not under DOOHCTL_STATE_DIR, so two state directories still meet; its
 * holder renews a lease (lease.ts), and a stale or dead holder's lock is taken over. Across users
 * and machines the re-reads are the guard.
 */
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { writeFileAtomicSync } from "../api/atomic-write.js";
import { createExclusive, privateDir, readPrivateFile, StateDirError } from "../api/private-files.js";
import type { Clock } from "../model/clock.js";
import type { RecoveryScope } from "../model/recovery.js";
import { type Lease, leaseExpiry, leaseFresh, leaseOf, ownLease, renewEvery } from "./lease.js";
import { accountKey } from "./recovery.js";

interface LockFile {
  started_at: string;
  /** Tells this process's locks from those of an earlier process with the same host and pid. */
  token: string;
  lease: Lease;
}

/** Tokens of the locks this process holds. */
const heldHere = new Set<string>();

export class ApplyLockError extends Error {
  override readonly name = "ApplyLockError";
  readonly code = "APPLY_LOCK_UNAVAILABLE";
}

function unusable(dir: string, error: unknown): Error {
  if (error instanceof StateDirError) return error;
  return new ApplyLockError(
    `cannot take the apply lock in ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)}), so nothing was sent: make it writable (or set XDG_RUNTIME_DIR to a directory of your own)`,
    { cause: error },
  );
}

/**
 * Where this OS user's apply locks live: `$XDG_RUNTIME_DIR/doohctl` when set (absolute),
 * else `<tmp>/doohctl-<uid>`; never under DOOHCTL_STATE_DIR.
 */
export function applyLockDir(env: Readonly<Record<string, string | undefined>>): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && isAbsolute(runtime)) return join(runtime, "doohctl");
  const tmp = env.TMPDIR && isAbsolute(env.TMPDIR) ? env.TMPDIR : tmpdir();
  return join(tmp, `doohctl-${process.getuid?.() ?? "user"}`);
}

export interface ApplyLock {
  release(): void;
}

/** Who holds a lock, as a waiting apply tells it. */
export interface LockHolder {
  host: string;
  pid: number;
  started_at: string;
  /** When the holder's lease goes stale unless renewed. */
  lease_expires_at: string;
}

function holderOf(path: string): LockFile | undefined {
  try {
    const text = readPrivateFile(path);
    if (text === undefined) return undefined;
    const file = JSON.parse(text) as Partial<LockFile>;
    const lease = leaseOf(file.lease);
    if (!lease || typeof file.token !== "string" || typeof file.started_at !== "string") return undefined;
    return { token: file.token, started_at: file.started_at, lease };
  } catch {
    return undefined;
  }
}

/** A takeover left behind by a process that died in the middle of one (it takes microseconds). */
const STALE_TAKEOVER_MS = 10_000;

/** Which file is at `path` (inode and change time: a reused inode is another file), if any. */
function identityOf(path: string): string | undefined {
  const stat = statSync(path, { bigint: true, throwIfNoEntry: false });
  return stat === undefined ? undefined : `${stat.ino}:${stat.ctimeNs}`;
}

/**
 * Removes the lock at `path` if still a dead holder's, or still the file found `unreadable`. Two
 * waiters that saw a crashed lock must not both remove "it" (the second would remove the first's
 * new lock), so removal happens under a takeover directory (mkdir is atomic), after reading the
 * holder again; a lock just created and not yet written is another file than the unreadable one.
 * False when another process is taking over right now.
 */
function takeOver(
  path: string,
  unreadable: string | undefined,
  alive: (holder: LockFile) => boolean,
): boolean {
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
    const dead = holder ? !alive(holder) : unreadable !== undefined && identityOf(path) === unreadable;
    if (dead) rmSync(path, { force: true });
    return true;
  } finally {
    rmSync(guard, { recursive: true, force: true });
  }
}

/**
 * Takes the account's apply lock, waiting (polling every second, `onWait` told once) while a
 * running apply of this OS user holds it; renews its lease until released.
 */
export async function acquireApplyLock(input: {
  /** `applyLockDir(env)`. */
  dir: string;
  scope: RecoveryScope;
  clock: Clock;
  signal?: AbortSignal | undefined;
  onWait?: (holder: LockHolder) => void;
}): Promise<ApplyLock> {
  const { dir, clock } = input;
  const path = join(dir, `${accountKey(input.scope)}.lock`);
  try {
    privateDir(dir, { create: true });
  } catch (error) {
    throw unusable(dir, error);
  }
  const alive = (holder: LockFile) => leaseFresh(holder.lease, clock.now(), () => heldHere.has(holder.token));
  let told = false;
  // The file found unreadable, and how many looks in a row found that same file so.
  let unreadable: { file: string | undefined; looks: number } = { file: undefined, looks: 0 };
  for (;;) {
    try {
      const fd = createExclusive(path);
      const mine: LockFile = {
        started_at: new Date(clock.now()).toISOString(),
        token: randomBytes(8).toString("hex"),
        lease: ownLease(clock),
      };
      heldHere.add(mine.token);
      try {
        writeSync(fd, JSON.stringify(mine));
      } finally {
        closeSync(fd);
      }
      const renewal = renewEvery(clock, () => {
        // Renewed only while still ours: a lock taken over after a long stall is the new holder's.
        if (holderOf(path)?.token === mine.token)
          writeFileAtomicSync(path, JSON.stringify({ ...mine, lease: ownLease(clock) }));
      });
      return {
        release: () => {
          renewal.stop();
          heldHere.delete(mine.token);
          if (holderOf(path)?.token === mine.token) rmSync(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw unusable(dir, error);
    }
    const holder = holderOf(path);
    if (!holder) {
      const file = identityOf(path);
      if (file === undefined) continue; // released meanwhile: create it again
      unreadable = { file, looks: file === unreadable.file ? unreadable.looks + 1 : 1 };
      if (unreadable.looks < 5) {
        // Its owner may be between creating the file and writing it.
        await clock.sleep(200, input.signal);
        continue;
      }
    }
    if (!holder || !alive(holder)) {
      // A crashed apply's lock: nobody will release it.
      if (!takeOver(path, holder ? undefined : unreadable.file, alive)) await clock.sleep(50, input.signal);
      continue;
    }
    if (!told) {
      input.onWait?.({
        host: holder.lease.host,
        pid: holder.lease.pid,
        started_at: holder.started_at,
        lease_expires_at: new Date(leaseExpiry(holder.lease)).toISOString(),
      });
      told = true;
    }
    await clock.sleep(1000, input.signal);
  }
}
