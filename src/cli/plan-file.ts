/**
 * A saved plan read from disk (`apply --plan FILE`, `show FILE`): a regular file of at most
 * MAX_PLAN_FILE_BYTES, counted while reading, never a pipe or a device, whose read waits or never
 * ends (docs/plan.md, Saved plans); then checked by parsePlan.
 */
import { randomBytes } from "node:crypto";
import { lstatSync, realpathSync, rmSync, statSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { describeBytes, FileRefused, readRegularFileSync } from "../config/file-guard.js";
import { PlanFileError, parsePlan, planFileChunks } from "../plan/file.js";
import type { Plan } from "../plan/types.js";

/**
 * The largest plan file saved or read: the plan of 100,000 campaigns is 274 MiB
 * (docs/performance.md#scale), above the 256 MiB of a config file, and one JavaScript string
 * holds at most about 512 MiB, which the file becomes before it is parsed.
 */
export const MAX_PLAN_FILE_BYTES = 480 * 1024 * 1024;

/** Reads and checks a saved plan; `shown` names it in messages (the path as the user wrote it). */
export function readPlanFile(path: string, shown: string = path, maxBytes = MAX_PLAN_FILE_BYTES): Plan {
  let text: string;
  try {
    text = Buffer.from(readRegularFileSync(path, maxBytes)).toString("utf8");
  } catch (error) {
    if (error instanceof FileRefused) {
      throw new PlanFileError(
        error.code === "FILE_TOO_LARGE" ? "PLAN_FILE_TOO_LARGE" : "PLAN_FILE_NOT_REGULAR",
        error.code === "FILE_TOO_LARGE"
          ? `${shown} is larger than ${describeBytes(maxBytes)}, the most doohctl reads from a plan file: give the path of a plan file written by doohctl plan -o`
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

/** The buffer a plan file is written through: few system calls, no joined strings. */
const WRITE_BYTES = 1024 * 1024;

/**
 * Saves `plan` to `path` (`plan -o`) as `serializePlan` would write it, streamed piece by
 * piece (`planFileChunks`) into a temporary file beside it and then renamed over it: a reader
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
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  // Tracked before it exists: an exit as soon as it is created still removes it.
  trackUnfinished(temp);
  const handle = await open(temp, "wx", 0o666).catch((error: unknown) => {
    unfinished.delete(temp);
    throw error;
  });
  try {
    if (existingMode !== undefined) await handle.chmod(existingMode & 0o7777);
    const buffer = Buffer.allocUnsafe(WRITE_BYTES);
    let used = 0;
    const writeAll = async (bytes: Buffer, length: number) => {
      for (let at = 0; at < length; ) at += (await handle.write(bytes, at, length - at)).bytesWritten;
    };
    let total = 0;
    for (const chunk of planFileChunks(plan)) {
      const bytes = Buffer.byteLength(chunk);
      total += bytes;
      // A plan file apply --plan would refuse is not saved: the previous file stays.
      if (total > maxBytes) throw tooLargeToSave(options.shown ?? path, maxBytes);
      if (used + bytes > WRITE_BYTES) {
        await writeAll(buffer, used);
        used = 0;
      }
      if (bytes > WRITE_BYTES) await writeAll(Buffer.from(chunk), bytes);
      else used += buffer.write(chunk, used, "utf8");
    }
    await writeAll(buffer, used);
    await handle.close();
    await rename(temp, target);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw error;
  } finally {
    unfinished.delete(temp);
  }
}

/**
 * Temporary files of writes under way. Ctrl-C during the write of a large plan ends the process
 * at once (interruptible.ts, main.ts `exitNow`): its exit removes them, so no
 * `.<name>.<hex>.tmp` is left beside the plan file, which stays as it was.
 */
const unfinished = new Set<string>();
let removedAtExit = false;

function trackUnfinished(temp: string): void {
  if (!removedAtExit) process.on("exit", removeUnfinished);
  removedAtExit = true;
  unfinished.add(temp);
}

function removeUnfinished(): void {
  for (const temp of unfinished) rmSync(temp, { force: true });
}

function tooLargeToSave(shown: string, maxBytes: number): PlanFileError {
  return new PlanFileError(
    "PLAN_FILE_TOO_LARGE",
    `the plan is larger than ${describeBytes(maxBytes)}, the most apply --plan reads from a plan file, so it was not saved to ${shown} (nothing was sent): plan fewer insertion orders at a time (doohctl plan FILES), or run doohctl apply, which plans and applies in one run`,
  );
}
