/**
 * `-o nodir/file`: the directory is checked before any request and named in the error, with
 * what to do, never left to a raw ENOENT after the work is done.
 */
import { statSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { CommandError } from "./errors.js";

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
