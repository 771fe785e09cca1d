/**
 * Reading and writing config files for pull: never through a link, only regular files, and
 * a file that changed since pull read it is refused (its digest is compared right before the
 * write). The write is atomic: a temporary file in the same directory, created exclusively
 * ('wx'), then renamed over the file, which keeps the file's mode.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  fsyncSync,
  lstatSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";

export class PullFileError extends Error {
  override readonly name = "PullFileError";
  readonly code = "PULL_FILE_REFUSED";
}

export function sha256(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The bytes of a regular file named directly (a link is refused, not followed). */
export function readRegular(path: string, display: string): Buffer {
  const stats = lstatSync(path);
  if (stats.isSymbolicLink()) {
    throw new PullFileError(
      `${display} is a symbolic link: pull writes only the file itself; name the file it points to`,
    );
  }
  if (!stats.isFile()) throw new PullFileError(`${display} is not a regular file`);
  return readFileSync(path);
}

/** Replaces `path` with `text` unless its bytes are no longer those with digest `expected`. */
export function writeIfUnchanged(path: string, display: string, text: string, expected: string): void {
  const now = readRegular(path, display);
  if (sha256(now) !== expected) {
    throw new PullFileError(`${display} changed since pull read it: nothing written to it; run pull again`);
  }
  const mode = lstatSync(path).mode & 0o7777;
  const temp = join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.pull.tmp`,
  );
  const fd = openSync(temp, "wx", mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  chmodSync(temp, mode);
  renameSync(temp, path);
}
