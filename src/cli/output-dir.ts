/** An output file (`export -o`, `show --overflow`): its directory checked first, not a raw ENOENT after. */
import { lstatSync, statSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import type { AtomicWriteOptions } from "../api/atomic-write.js";
import { CommandError } from "./errors.js";

/**
 * Without --force only where no file is (EEXIST); with it, a file or a link at the path is
 * replaced, never what a link points to. A replaced file keeps its mode; a new one gets a create's.
 */
export function outputFileOptions(path: string, force: boolean): AtomicWriteOptions {
  const existing = lstatSync(path, { throwIfNoEntry: false });
  const mode = existing?.isFile() ? { mode: existing.mode & 0o7777 } : { mode: 0o666, umask: true };
  return { ...mode, exclusive: !force };
}

/** A CommandError(`code`) when the directory `out` goes in is missing or no directory. */
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
