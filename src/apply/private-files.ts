/**
 * The state's files on disk (docs/safety.md, Recovery record): directories 0700 owned by the
 * OS user running doohctl, files created exclusively and never through a link, mode 0600.
 * Anything looser, or another owner, is refused loudly, naming the path and what to run: a
 * record another user can plant decides which campaigns apply reactivates.
 */
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";

export class StateDirError extends Error {
  override readonly name = "StateDirError";
  readonly code = "STATE_DIR_UNSAFE";
}

/** A record or lock file is small; anything larger is not one (and /proc files stat as 0 bytes). */
const MAX_STATE_FILE_BYTES = 1024 * 1024;

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Checks (creating it 0700 first when `create`) that `path` is a directory, not a link, owned
 * by this OS user and closed to group and others. Returns false when it does not exist and
 * `create` is false.
 */
export function privateDir(path: string, options: { create: boolean }): boolean {
  let stat: ReturnType<typeof lstatSync>;
  try {
    if (options.create) mkdirSync(path, { recursive: true, mode: 0o700 });
    stat = lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && !options.create) return false;
    throw new StateDirError(
      `cannot use ${path} (${code ?? String(error)}): make the state directory usable, or set DOOHCTL_STATE_DIR to another absolute path`,
      { cause: error },
    );
  }
  if (!stat.isDirectory()) {
    throw new StateDirError(
      `${path} is ${stat.isSymbolicLink() ? "a symbolic link" : "not a directory"}: doohctl keeps its state only in a real directory of its own; remove it (doohctl creates it again, mode 0700)`,
    );
  }
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new StateDirError(
      `${path} belongs to uid ${stat.uid}, not to this user (uid ${uid}): another user could plant the recovery record there; use a state directory of your own (DOOHCTL_STATE_DIR), or run: chown ${uid} ${path}`,
    );
  }
  if (process.platform !== "win32" && (stat.mode & 0o077) !== 0) {
    throw new StateDirError(
      `${path} has mode ${(stat.mode & 0o777).toString(8)}: group or others could read or plant the recovery record; run: chmod 700 ${path}`,
    );
  }
  return true;
}

/**
 * The text of a regular file, never through a link; undefined when it does not exist. Throws
 * with the reason when it is a link, not a regular file, or too large.
 */
export function readPrivateFile(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NOFOLLOW | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP") throw new Error("a symbolic link, never followed");
    throw error;
  }
  try {
    if (!fstatSync(fd).isFile()) throw new Error("not a regular file");
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      size += n;
      if (size > MAX_STATE_FILE_BYTES) throw new Error(`larger than ${MAX_STATE_FILE_BYTES} bytes`);
      chunks.push(chunk.subarray(0, n));
    }
    return Buffer.concat(chunks).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** Creates `path` exclusively (fails with EEXIST when anything, a link included, is there), 0600. */
export function createExclusive(path: string): number {
  return openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
}

/**
 * Writes `text` to `path` so that it is on disk before this returns: a temporary file
 * `<path>.<pid>.tmp` created exclusively (a link or leftover there is removed, never
 * followed), fsync, rename over `path` (which replaces a link rather than following it),
 * fsync of the directory.
 */
export function writeDurably(path: string, dir: string, text: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  let fd: number;
  try {
    fd = createExclusive(temp);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    // A leftover of a killed process with this pid, or a planted link: unlink removes the
    // entry itself, never what a link points to.
    rmSync(temp, { force: true });
    fd = createExclusive(temp);
  }
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  try {
    const dirFd = openSync(dir, "r");
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  } catch {
    // Some filesystems refuse to fsync a directory; the file itself is synced.
  }
}
