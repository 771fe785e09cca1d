/**
 * A saved plan read from disk (`apply --plan FILE`, `show FILE`): a regular file of at most
 * MAX_FILE_BYTES, counted while reading, never a pipe or a device, whose read waits or never
 * ends (docs/plan.md, Saved plans); then checked by parsePlan.
 */
import { describeBytes, FileRefused, MAX_FILE_BYTES, readRegularFileSync } from "../config/file-guard.js";
import { PlanFileError, parsePlan } from "../plan/file.js";
import type { Plan } from "../plan/types.js";

/** Reads and checks a saved plan; `shown` names it in messages (the path as the user wrote it). */
export function readPlanFile(path: string, shown: string = path): Plan {
  let text: string;
  try {
    text = Buffer.from(readRegularFileSync(path)).toString("utf8");
  } catch (error) {
    if (error instanceof FileRefused) {
      throw new PlanFileError(
        error.code === "FILE_TOO_LARGE" ? "PLAN_FILE_TOO_LARGE" : "PLAN_FILE_NOT_REGULAR",
        error.code === "FILE_TOO_LARGE"
          ? `${shown} is larger than ${describeBytes(MAX_FILE_BYTES)}, the most doohctl reads from a plan file: give the path of a plan file written by doohctl plan -o`
          : `${shown} ${error.message.replace(/;.*$/, "")}: give the path of a plan file written by doohctl plan -o`,
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
      `${shown} cannot be read (${why ?? (error as Error).message}): give the path of a plan file written by doohctl plan -o`,
    );
  }
  return parsePlan(text, shown);
}
