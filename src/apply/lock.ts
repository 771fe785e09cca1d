/**
 * One apply at a time per account on a machine and OS user (docs/safety.md, Two applies at
 * once). Two applies started together both plan against the same live state; without a lock
 * both would pass their checks and both send (two people at once created one campaign twice).
 * The lock serializes their writes: the second waits, then its re-reads before each write
 * (guard.ts) see the first one's changes and stop it before it writes anything stale.
 *
 * The lock lives in a per-user place that does not move with DOOHCTL_STATE_DIR
 * (`$XDG_RUNTIME_DIR/doohctl`, else `<tmp>/doohctl-<uid>`, 0700 and the user's own), so two
 * applies with two state directories still meet. Its holder renews a lease in it (lease.ts);
 * a lock whose lease is stale, or whose process (pid and start time) is gone, is taken over.
 * Across OS users and machines the re-reads are the guard (docs/safety.md).
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

/**
 * Removes the lock at `path` if it is still a dead holder's (or still unreadable, when
 * `unreadable` says it has been for a while). Two waiters that both saw a crashed apply's lock
 * must not both remove "it": the second would remove the lock the first has just taken, and
 * both would run. So removal happens only under a takeover directory (mkdir is atomic), after
 * reading the holder again; only its owner's release() removes a live lock otherwise.
 * Returns false when another process is taking over right now.
 */
function takeOver(path: string, unreadable: boolean, alive: (holder: LockFile) => boolean): boolean {
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
  let unreadable = 0;
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
    if (!holder && ++unreadable < 5) {
      // Its owner may be between creating the file and writing it.
      await clock.sleep(200, input.signal);
      continue;
    }
    if (!holder || !alive(holder)) {
      // A crashed apply's lock: nobody will release it.
      if (!takeOver(path, !holder, alive)) await clock.sleep(50, input.signal);
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
