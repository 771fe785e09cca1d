/**
 * A saved plan on disk (docs/plan.md, Saved plans): read only from a regular file (a pipe or a
 * device waits or never ends) of at most MAX_PLAN_FILE_BYTES, then checked by parsePlan.
 */
import { lstatSync, rmSync } from "node:fs";
import { writeFileAtomic } from "../api/atomic-write.js";
import { describeBytes, FileRefused, readRegularFileSync } from "../config/file-guard.js";
import { PlanFileError, parsePlan, planFileChunks } from "../plan/saved/file.js";
import type { Plan } from "../plan/types.js";

/**
 * The largest plan file saved or read: one takes 8 times its size to read, and apply --plan
 * plans again, so 64 MiB (20,000 changing campaigns) is what a 2 GB runner holds.
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
 * Saves `plan` (`plan -o`), streamed through the one atomic write: never half a plan, the old
 * file kept on a stop. An existing file keeps its mode, a new one gets 0666 less the umask; a
 * link at `path` is replaced, never followed (a link planted in a checkout must not aim the
 * write at another file), as `export -o` and `show --overflow` do.
 */
export async function writePlanFile(
  path: string,
  plan: Plan,
  options: { shown?: string; maxBytes?: number } = {},
): Promise<void> {
  const maxBytes = options.maxBytes ?? MAX_PLAN_FILE_BYTES;
  const existing = lstatSync(path, { throwIfNoEntry: false });
  const existingMode = existing?.isFile() ? existing.mode : undefined;
  function* counted(): Generator<string> {
    let total = 0;
    for (const chunk of planFileChunks(plan)) {
      total += Buffer.byteLength(chunk);
      // A plan file apply --plan would refuse is not saved: the previous file stays.
      if (total > maxBytes) throw tooLargeToSave(options.shown ?? path, maxBytes);
      yield chunk;
    }
  }
  await writeFileAtomic(path, counted(), {
    ...(existingMode !== undefined ? { mode: existingMode & 0o7777 } : { mode: 0o666, umask: true }),
    track: unfinished,
  });
}

/** Temporary files of writes under way: Ctrl-C ends the process (`exitNow`), whose exit removes them. */
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
