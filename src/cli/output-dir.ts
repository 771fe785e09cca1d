/**
 * A user's output file (`export -o`, `show --overflow`): `-o nodir/file`'s directory is
 * checked before any request and named in the error, with what to do, never left to a raw
 * ENOENT after the work is done; the file is written through the one atomic write.
 */
import { lstatSync, statSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import type { AtomicWriteOptions } from "../api/atomic-write.js";
import { CommandError } from "./errors.js";

/**
 * How an output file is written: without --force only where no file is (one that appeared
 * since the check is refused, EEXIST); with it, a file or a link at the path is replaced,
 * never the file a link points to. A file replaced keeps its mode; a new one gets what a
 * plain create gives it.
 */
export function outputFileOptions(path: string, force: boolean): AtomicWriteOptions {
  const existing = lstatSync(path, { throwIfNoEntry: false });
  const mode = existing?.isFile() ? { mode: existing.mode & 0o7777 } : { mode: 0o666, umask: true };
  return { ...mode, exclusive: !force };
}

/** Throws CommandError(`code`) when the directory `out` (relative to `cwd`) would go in is missing or no directory. */
export function checkOutputDirectory(cwd: string, out: string, code: string): void {
  const dir = dirname(resolve(cwd, out));
  const shown = relative(cwd, dir) || ".";
  let isDirectory: boolean;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch {
    throw new CommandError(
      code,
      `-o ${out}: the directory ${shown} does not exist: create it first (mkdir -p ${shown}) or choose another -o FILE`,
    );
  }
  if (!isDirectory)
    throw new CommandError(code, `-o ${out}: ${shown} is not a directory: choose another -o FILE`);
}
