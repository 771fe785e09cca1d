/**
 * doohctl's state files (docs/safety.md, Recovery record; docs/api-client.md, Sessions): 0700
 * directories and 0600 files of the OS user running doohctl, replaced through the one atomic
 * write, never read through a link. Anything looser, or another owner, is refused loudly with
 * the path and what to run: a record another user plants decides which campaigns apply
 * reactivates, and a planted session cache which account's record a plan reads.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readSync } from "node:fs";

export class StateDirError extends Error {
  override readonly name = "StateDirError";
  readonly code = "STATE_DIR_UNSAFE";
  /** Another user could write there (a link, owner, mode); false when merely unusable (read-only home). */
  readonly unsafe: boolean;
  constructor(message: string, options: ErrorOptions & { unsafe?: boolean } = {}) {
    super(message, options);
    this.unsafe = options.unsafe ?? true;
  }
}

/** A state file that is a link, not a regular file, too large, another user's or open to others. */
export class PrivateFileError extends Error {
  override readonly name = "PrivateFileError";
  readonly code = "STATE_FILE_UNSAFE";
}

/** What a directory holds and how to use another one, for the messages that refuse it. */
export interface PrivatePlace {
  /** e.g. "the state directory". */
  dir: string;
  /** e.g. "the recovery record". */
  holds: string;
  /** e.g. "set DOOHCTL_STATE_DIR to another absolute path". */
  elsewhere: string;
}

export const STATE_DIR: PrivatePlace = {
  dir: "the state directory",
  holds: "the recovery record",
  elsewhere: "set DOOHCTL_STATE_DIR to another absolute path",
};

export const CACHE_DIR: PrivatePlace = {
  dir: "the cache directory",
  holds: "a session cache or pacing log",
  elsewhere:
    "set XDG_CACHE_HOME to a directory of your own, or turn the cache off (--no-session-cache, DOOHCTL_SESSION_CACHE=off)",
};

/** The OS user a state file must belong to; tests inject another. Undefined: no owners (Windows). */
export type OwnerCheck = { uid: number | undefined };

const thisUser = (): OwnerCheck => ({ uid: process.getuid?.() });

/** A record or lock file is small; anything larger is not one (and /proc files stat as 0 bytes). */
const MAX_STATE_FILE_BYTES = 1024 * 1024;

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Checks (creating it 0700 when `create`) that `path` is a directory, not a link, of this OS
 * user and closed to group and others; false when it does not exist and `create` is false.
 */
export function privateDir(
  path: string,
  options: { create: boolean; place?: PrivatePlace; owner?: OwnerCheck },
): boolean {
  const place = options.place ?? STATE_DIR;
  let stat: ReturnType<typeof lstatSync>;
  try {
    if (options.create) mkdirSync(path, { recursive: true, mode: 0o700 });
    stat = lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && !options.create) return false;
    throw new StateDirError(
      `cannot use ${path} (${code ?? String(error)}): make ${place.dir} usable, or ${place.elsewhere}`,
      { cause: error, unsafe: false },
    );
  }
  if (!stat.isDirectory()) {
    throw new StateDirError(
      `${path} is ${stat.isSymbolicLink() ? "a symbolic link" : "not a directory"}: doohctl keeps its state only in a real directory of its own; remove it (doohctl creates it again, mode 0700), or ${place.elsewhere}`,
    );
  }
  const { uid } = options.owner ?? thisUser();
  if (uid !== undefined && stat.uid !== uid) {
    throw new StateDirError(
      `${path} belongs to uid ${stat.uid}, not to this user (uid ${uid}): another user could plant ${place.holds} there; ${place.elsewhere}, or run: chown ${uid} ${path}`,
    );
  }
  if (process.platform !== "win32" && (stat.mode & 0o077) !== 0) {
    throw new StateDirError(
      `${path} has mode ${(stat.mode & 0o777).toString(8)}: group or others could read or plant ${place.holds}; run: chmod 700 ${path}`,
    );
  }
  return true;
}

/**
 * The text of a regular file of this OS user, closed to others, never through a link;
 * undefined when absent; else a PrivateFileError with the reason and the fix.
 */
export function readPrivateFile(path: string, options: { owner?: OwnerCheck } = {}): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NOFOLLOW | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP") throw new PrivateFileError("a symbolic link, never followed");
    throw error;
  }
  try {
    checkPrivateFile(fd, path, options.owner ?? thisUser());
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      size += n;
      if (size > MAX_STATE_FILE_BYTES) {
        throw new PrivateFileError(`larger than ${MAX_STATE_FILE_BYTES} bytes`);
      }
      chunks.push(chunk.subarray(0, n));
    }
    return Buffer.concat(chunks).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** The checks of an open state file: regular, this user's, closed to group and others. */
export function checkPrivateFile(fd: number, path: string, owner: OwnerCheck): void {
  const stat = fstatSync(fd);
  if (!stat.isFile()) throw new PrivateFileError("not a regular file");
  if (owner.uid !== undefined && stat.uid !== owner.uid) {
    throw new PrivateFileError(
      `owned by uid ${stat.uid}, not by this user (uid ${owner.uid}): another user could have written it; remove it: rm ${path}`,
    );
  }
  if (process.platform !== "win32" && (stat.mode & 0o077) !== 0) {
    throw new PrivateFileError(
      `mode ${(stat.mode & 0o777).toString(8)}: group or others could read or replace it; run: chmod 600 ${path}`,
    );
  }
}

/** Creates `path` exclusively (fails with EEXIST when anything, a link included, is there), 0600. */
export function createExclusive(path: string): number {
  return openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
}
