/**
 * Config files for pull: regular files only, never through a link; one that changed since pull read
 * it (digest compared right before the write), or is read-only, is refused. The write is the one
 * atomic write (src/api/atomic-write.ts), keeping the file's mode.
 */
import { createHash } from "node:crypto";
import { lstatSync, readFileSync } from "node:fs";
import { writeFileAtomicSync } from "../api/atomic-write.js";

export class PullFileError extends Error {
  override readonly name = "PullFileError";
  readonly code = "PULL_FILE_REFUSED";
}

export function sha256(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * The bytes of a regular file named directly (a link is refused, not followed). One larger than
 * `maxBytes`, the most a config file is read (docs/safety.md, Size caps), is not the file pull
 * read: it is refused unread.
 */
export function readRegular(path: string, display: string, maxBytes: number): Buffer {
  const stats = lstatSync(path);
  if (stats.isSymbolicLink()) {
    throw new PullFileError(
      `${display} is a symbolic link: pull writes only the file itself; name the file it points to`,
    );
  }
  if (!stats.isFile()) throw new PullFileError(`${display} is not a regular file`);
  if (stats.size > maxBytes) throw changedSinceRead(display);
  return readFileSync(path);
}

/** The one refusal of a file that is no longer the one pull read. */
export const changedSinceRead = (display: string) =>
  new PullFileError(`${display} changed since pull read it: nothing written to it; run pull again`);

/**
 * Replaces `path` with `text` unless its digest is no longer `expected`, or it is read-only: a file
 * its owner made read-only is theirs to change. The file keeps its mode.
 */
export function writeIfUnchanged(
  path: string,
  display: string,
  text: string,
  expected: string,
  maxBytes: number,
): void {
  if (sha256(readRegular(path, display, maxBytes)) !== expected) throw changedSinceRead(display);
  const mode = lstatSync(path).mode & 0o7777;
  if ((mode & 0o200) === 0) {
    throw new PullFileError(
      `${display} is read-only (mode ${mode.toString(8).padStart(4, "0")}): nothing written to it; make it writable (chmod u+w ${display}) and run pull again, or edit it by hand`,
    );
  }
  writeFileAtomicSync(path, text, { mode });
}
