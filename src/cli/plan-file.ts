/**
 * A saved plan read from disk (`apply --plan FILE`, `show FILE`): a regular file of at most
 * MAX_PLAN_FILE_BYTES, counted while reading, never a pipe or a device, whose read waits or never
 * ends (docs/plan.md, Saved plans); then checked by parsePlan.
 */
import { lstatSync, realpathSync, rmSync, statSync } from "node:fs";
import { writeFileAtomic } from "../api/atomic-write.js";
import { describeBytes, FileRefused, readRegularFileSync } from "../config/file-guard.js";
import { PlanFileError, parsePlan, planFileChunks } from "../plan/saved/file.js";
import type { Plan } from "../plan/types.js";

/**
 * The largest plan file saved or read: reading one takes about 8 times its size in memory
 * (a plan of 10,000 campaigns, 31 MiB, 240 MiB), and apply --plan then plans again, so 64 MiB
 * (about 20,000 campaigns, each of them changing) is what a 2 GB runner holds (docs/plan.md,
 * Saved plans).
 */
export const MAX_PLAN_FILE_BYTES = 64 * 1024 * 1024;
const PLAN_ADVICE = "give the path of a plan file written by doohctl plan -o";

/** Reads and checks a saved plan; `shown` names it in messages (the path as the user wrote it). */
export function readPlanFile(path: string, shown: string = path, maxBytes = MAX_PLAN_FILE_BYTES): Plan {
  let text: string;
  try {
    const limit = { bytes: maxBytes, of: "a plan file", advice: PLAN_ADVICE };
    text = Buffer.from(readRegularFileSync(path, limit)).toString("utf8");
  } catch (error) {
    if (error instanceof FileRefused) {
      const tooLarge = error.code === "FILE_TOO_LARGE";
      throw new PlanFileError(
        tooLarge ? "PLAN_FILE_TOO_LARGE" : "PLAN_FILE_NOT_REGULAR",
        `${shown} ${tooLarge ? error.message : `${error.message.replace(/;.*$/, "")}: ${PLAN_ADVICE}`}`,
      );
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new PlanFileError(
        "PLAN_FILE_NOT_FOUND",
        `${shown} does not exist: save a plan first with doohctl plan -o ${shown}, or check the path`,
      );
    }
    const why = code === "EISDIR" ? "it is a directory" : code === "EACCES" ? "permission denied" : code;
    throw new PlanFileError(
      "PLAN_FILE_UNREADABLE",
      `${shown} cannot be read (${why ?? (error as Error).message}): ${PLAN_ADVICE}`,
    );
  }
  return parsePlan(text, shown);
}

/**
 * Saves `plan` to `path` (`plan -o`) as `serializePlan` would write it, streamed piece by
 * piece (`planFileChunks`) through the one atomic write (src/api/atomic-write.ts): a reader
 * never sees half a plan, and an interrupted write leaves the previous file as it was. The
 * file gets the mode a plain write gives it: an existing file's own (a symbolic link is
 * followed, as a plain write follows it), else 0666 less the umask.
 */
export async function writePlanFile(
  path: string,
  plan: Plan,
  options: { shown?: string; maxBytes?: number } = {},
): Promise<void> {
  const maxBytes = options.maxBytes ?? MAX_PLAN_FILE_BYTES;
  const target = lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ? realpathSync(path) : path;
  const existingMode = statSync(target, { throwIfNoEntry: false })?.mode;
  function* counted(): Generator<string> {
    let total = 0;
    for (const chunk of planFileChunks(plan)) {
      total += Buffer.byteLength(chunk);
      // A plan file apply --plan would refuse is not saved: the previous file stays.
      if (total > maxBytes) throw tooLargeToSave(options.shown ?? path, maxBytes);
      yield chunk;
    }
  }
  await writeFileAtomic(target, counted(), {
    ...(existingMode !== undefined ? { mode: existingMode & 0o7777 } : { mode: 0o666, umask: true }),
    track: unfinished,
  });
}

/**
 * Temporary files of writes under way. Ctrl-C during the write of a large plan ends the process
 * at once (interruptible.ts, main.ts `exitNow`): its exit removes them, so no
 * `.<name>.<pid>.<hex>.tmp` is left beside the plan file, which stays as it was.
 */
const unfinished = {
  temps: new Set<string>(),
  removedAtExit: false,
  add(temp: string): void {
    if (!this.removedAtExit) process.on("exit", () => removeUnfinished(this.temps));
    this.removedAtExit = true;
    this.temps.add(temp);
  },
  delete(temp: string): void {
    this.temps.delete(temp);
  },
};

function removeUnfinished(temps: Set<string>): void {
  for (const temp of temps) rmSync(temp, { force: true });
}

function tooLargeToSave(shown: string, maxBytes: number): PlanFileError {
  return new PlanFileError(
    "PLAN_FILE_TOO_LARGE",
    `the plan is larger than ${describeBytes(maxBytes)}, the most apply --plan reads from a plan file, so it was not saved to ${shown} (nothing was sent): plan fewer insertion orders at a time (doohctl plan FILES), or run doohctl apply, which plans and applies in one run`,
  );
}
