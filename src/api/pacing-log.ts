/**
 * Pacing across runs (G10; docs/api-client.md, Pacing across runs): the requests other runs on
 * this machine made for the same origin, environment and user, still inside their window. A run
 * that knew only its own would draw a 429 from a window an earlier run just filled.
 */
import { createHash, randomUUID } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { RequestClass } from "../model/limits.js";
import { writeFileAtomicSync } from "./atomic-write.js";
import {
  CACHE_DIR,
  checkPrivateFile,
  type OwnerCheck,
  PrivateFileError,
  privateDir,
  readPrivateFile,
} from "./private-files.js";

/** What the limiter needs of other runs; injected, so tests can share one in memory. */
export interface PacingLog {
  /** Times at which other runs' counted requests of `cls` started cooling down, after `since`. */
  others(cls: RequestClass, since: number): number[];
  /** This run's request of `cls` started cooling down at `at`. */
  record(cls: RequestClass, at: number): void;
}

const COMPACT_BYTES = 64 * 1024;

const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);

export class PacingLogError extends Error {
  override readonly name = "PacingLogError";
  readonly code = "STATE_FILE_UNSAFE";
}

/**
 * @param keepMs how long a line matters (the longest window, plus margin); compaction drops older.
 * Throws PacingLogError, before any request, when the file is not a 0600 regular file of this
 * user: another user's lines would pace this run, and a link would append to what it names.
 */
export function filePacingLog(options: {
  path: string;
  now: () => number;
  keepMs: number;
  owner?: OwnerCheck;
}): PacingLog {
  const run = randomUUID().slice(0, 8);
  const { path, now } = options;
  const owner = options.owner ? { owner: options.owner } : {};
  try {
    readPrivateFile(path, owner);
  } catch (error) {
    if (!(error instanceof PrivateFileError)) throw error;
    throw new PacingLogError(
      `the pacing log ${path} is ${error.message}: doohctl reads only a log it wrote itself; remove it (doohctl starts a new one), or turn the cache off (--no-session-cache, DOOHCTL_SESSION_CACHE=off)`,
    );
  }
  let broken = false;
  // G10: a line dated in the future (forged, or the clock stepped back) counts from when this
  // run first saw it, so it holds a slot one window at most, never until its date.
  const firstSeen = new Map<string, number>();
  const lines = (): string[] => {
    try {
      return (readPrivateFile(path, owner) ?? "").split("\n");
    } catch {
      return []; // unreadable since the start (replaced meanwhile): pace on this run's own requests
    }
  };
  return {
    others(cls, since) {
      const times: number[] = [];
      const at = now();
      for (const line of lines()) {
        const [who, which, stamp] = line.split(" ");
        if (who === run || which !== cls || stamp === undefined) continue;
        let time = Number(stamp);
        if (!Number.isFinite(time)) continue;
        if (time > at) {
          if (!firstSeen.has(line)) firstSeen.set(line, at);
          time = firstSeen.get(line)!;
        }
        if (time > since) times.push(time);
      }
      return times;
    },
    record(cls, at) {
      if (broken) return;
      try {
        const size = append(path, `${run} ${cls} ${at}\n`, options.owner);
        if (size > COMPACT_BYTES) compact(path, now(), now() - options.keepMs, options.owner);
      } catch {
        broken = true; // pacing across runs is an aid: a read-only cache must not fail the run
      }
    },
  };
}

/** One O_APPEND write (never through a link, only to this user's 0600 file); the size after it. */
function append(path: string, line: string, owner: OwnerCheck | undefined): number {
  const fd = openSync(path, APPEND, 0o600);
  try {
    checkPrivateFile(fd, path, owner ?? { uid: process.getuid?.() });
    writeSync(fd, line);
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

/** Rewrites the log without the lines whose window is over; a future date is written as now. */
function compact(path: string, now: number, since: number, owner: OwnerCheck | undefined): void {
  const keep: string[] = [];
  for (const line of (readPrivateFile(path, owner ? { owner } : {}) ?? "").split("\n")) {
    const [who, which, stamp] = line.split(" ");
    const time = Number(stamp);
    if (!Number.isFinite(time) || time <= since) continue;
    keep.push(`${who} ${which} ${Math.min(time, now)}`);
  }
  writeFileAtomicSync(path, keep.length > 0 ? `${keep.join("\n")}\n` : "", { mode: 0o600 });
}

/**
 * The log's file for one origin, environment and user, keyed like the session cache (the name
 * reveals none); its directory is created 0700, and refused when not this user's (StateDirError).
 */
export function pacingLogPath(
  dir: string,
  who: { origin: string; environment: string; email: string },
  owner?: OwnerCheck,
): string {
  privateDir(dir, { create: true, place: CACHE_DIR, ...(owner ? { owner } : {}) });
  const key = createHash("sha256").update(`${who.origin}\n${who.environment}\n${who.email}`).digest("hex");
  return join(dir, `pacing-${key.slice(0, 32)}.log`);
}
