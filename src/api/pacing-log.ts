/**
 * Pacing across runs: the requests that other runs on this machine made for the same origin,
 * environment and user, still inside their window (G10). Plans, the nightly drift job and
 * applies draw on one user's windows; a run that knew only its own requests would draw a
 * 429 from a window an earlier run filled a moment ago.
 *
 * A small append-only file next to the session cache, one line per counted request:
 * `<run> <class> <time>` (clock milliseconds at which its slot started cooling down). Runs in
 * parallel each append whole lines with one `O_APPEND` write, which the system does not
 * interleave, and read the file before each send, so they see each other too. When the file
 * grows past COMPACT_BYTES it is rewritten without the lines whose window is over (to a
 * temporary file, then renamed); a line another run appends during that rewrite can be lost,
 * which costs at most one slot of pacing, never a wrong request. No secret goes in the file.
 */
import { createHash, randomUUID } from "node:crypto";
import { appendFileSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RequestClass } from "../model/limits.js";

/** What the limiter needs of other runs; injected, so tests can share one in memory. */
export interface PacingLog {
  /** Times at which other runs' counted requests of `cls` started cooling down, after `since`. */
  others(cls: RequestClass, since: number): number[];
  /** This run's request of `cls` started cooling down at `at`. */
  record(cls: RequestClass, at: number): void;
}

const COMPACT_BYTES = 64 * 1024;

/**
 * @param keepMs how long a line matters: the longest window of the configured limits (plus
 * margin); a compaction drops older lines.
 */
export function filePacingLog(options: { path: string; now: () => number; keepMs: number }): PacingLog {
  const run = randomUUID().slice(0, 8);
  const { path } = options;
  let broken = false;
  const lines = (): string[] => {
    try {
      return readFileSync(path, "utf8").split("\n");
    } catch {
      return []; // no file yet, or unreadable: pace on this run's own requests
    }
  };
  return {
    others(cls, since) {
      const times: number[] = [];
      for (const line of lines()) {
        const [who, which, at] = line.split(" ");
        if (who === run || which !== cls || at === undefined) continue;
        const time = Number(at);
        if (Number.isFinite(time) && time > since) times.push(time);
      }
      return times;
    },
    record(cls, at) {
      if (broken) return;
      try {
        appendFileSync(path, `${run} ${cls} ${at}\n`, { mode: 0o600 });
        if (statSync(path).size > COMPACT_BYTES) compact(path, options.now() - options.keepMs);
      } catch {
        broken = true; // pacing across runs is an aid: a read-only cache must not fail the run
      }
    },
  };
}

function compact(path: string, since: number): void {
  const keep = readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => Number(line.split(" ")[2]) > since);
  const temporary = `${path}.${randomUUID().slice(0, 8)}.tmp`;
  writeFileSync(temporary, keep.length > 0 ? `${keep.join("\n")}\n` : "", { mode: 0o600 });
  renameSync(temporary, path);
}

/**
 * The log's file for one origin, environment and user, keyed like the session cache: the
 * name reveals none of them. Creates the directory (mode 0700) if needed.
 */
export function pacingLogPath(
  dir: string,
  who: { origin: string; environment: string; email: string },
): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const key = createHash("sha256").update(`${who.origin}\n${who.environment}\n${who.email}`).digest("hex");
  return join(dir, `pacing-${key.slice(0, 32)}.log`);
}
