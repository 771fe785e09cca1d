/**
 * The machine is the trust boundary (docs/safety.md, Files and the tree): a config or plan
 * file is read only when it is a regular file, never past a size cap, and a file found in a
 * directory or named by a saved plan only when it resolves inside the tree. A named pipe, a
 * device or a socket is refused before any byte is read (a read of a FIFO waits for ever, one
 * of /dev/zero never ends), and the cap is counted while reading, since `stat` says 0 bytes
 * for a /proc file.
 */
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from "node:fs";
import { realpath, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, sep } from "node:path";

/**
 * The largest config or plan file read: 256 MiB holds a file of 1,000,000 creatives with
 * every field written in block style (120 MB, measured), twice over, and stays well below
 * what one JavaScript string can hold (about 512 MiB).
 */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;

export type RefusalCode = "FILE_NOT_REGULAR" | "FILE_TOO_LARGE" | "FILE_OUTSIDE_TREE";

/** A file that is not read, and why; the message names no content, only what the file is. */
export class FileRefused extends Error {
  override readonly name = "FileRefused";
  constructor(
    readonly code: RefusalCode,
    message: string,
  ) {
    super(message);
  }
}

/** What a non-regular file is, in words. */
export function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a named pipe (FIFO)";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  if (stats.isSocket()) return "a socket";
  if (stats.isSymbolicLink()) return "a link";
  return "not a regular file";
}

function notRegular(stats: Stats): FileRefused {
  return new FileRefused(
    "FILE_NOT_REGULAR",
    `is ${kindOf(stats)}, not a regular file: nothing was read from it; a config file is a regular file (rename or move this entry, or name the file itself)`,
  );
}

function tooLarge(maxBytes: number): FileRefused {
  return new FileRefused(
    "FILE_TOO_LARGE",
    `is larger than ${describeBytes(maxBytes)}, the most doohctl reads from one file: split it into several files in one directory`,
  );
}

/** Kernel files (/proc, /sys) look regular and say 0 bytes: never a config. */
function refuseKernelFile(resolved: string): void {
  if (/^\/(proc|sys)(\/|$)/.test(resolved)) {
    throw new FileRefused(
      "FILE_NOT_REGULAR",
      `resolves to ${resolved}, a kernel file, not a regular file: nothing was read from it; name a config file`,
    );
  }
}

export function describeBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

// O_NONBLOCK: opening a FIFO swapped in after a check returns at once instead of waiting for
// a writer; the descriptor is checked to be a regular file before a byte is read.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
const CHUNK = 1024 * 1024;

/**
 * A regular file's bytes, at most `maxBytes`; FileRefused otherwise (ENOENT and the like thrown
 * as is). Read synchronously underneath: a regular file's read does not wait on anyone (the
 * open never waits on a FIFO), and one read path is one set of checks.
 */
export async function readRegularFile(path: string, maxBytes = MAX_FILE_BYTES): Promise<Uint8Array> {
  return readRegularFileSync(path, maxBytes);
}

/** The same, synchronously (a saved plan is read before anything else runs). */
export function readRegularFileSync(path: string, maxBytes = MAX_FILE_BYTES): Uint8Array {
  let resolved = path;
  try {
    resolved = realpathSync(path);
  } catch {
    // opening it reports the real problem
  }
  refuseKernelFile(resolved);
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    let stats: Stats | undefined;
    try {
      stats = statSync(path);
    } catch {
      // the open's error says it better
    }
    throw stats !== undefined && !stats.isFile() ? notRegular(stats) : error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw notRegular(stats);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK, maxBytes + 1 - total));
      const bytesRead = readSync(fd, buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw tooLarge(maxBytes);
      chunks.push(bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead));
    }
    return new Uint8Array(Buffer.concat(chunks, total));
  } finally {
    closeSync(fd);
  }
}

/**
 * The tree a run trusts: the git work tree holding `cwd` (the nearest directory above it with
 * a `.git` directory or file), or `cwd` itself outside git; links resolved.
 */
export async function findTree(cwd: string): Promise<string> {
  const start = await realpath(cwd).catch(() => cwd);
  for (let dir = start; ; dir = dirname(dir)) {
    if (
      await stat(join(dir, ".git")).then(
        () => true,
        () => false,
      )
    )
      return dir;
    if (dirname(dir) === dir) return start;
  }
}

/** `path` is `root` or inside it (both with links resolved). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}

/** `path` relative to `root`, with `/`, or undefined when it is not inside. */
export function treeRelative(root: string, path: string): string | undefined {
  return isInside(root, path) ? relative(root, path).split(sep).join("/") : undefined;
}
