/**
 * The machine is the trust boundary (docs/safety.md, Files and the tree): a config or plan file
 * is read only when regular (a FIFO waits for ever, /dev/zero never ends), never past a cap
 * (counted while reading too: `stat` says 0 for /proc), and, found in a directory or named by a
 * saved plan, only inside the tree.
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

/** A size a run reads at most: of what, and what to do beyond it. */
export interface ByteLimit {
  bytes: number;
  /** "one config file": the words after "the 8 MiB doohctl reads from". */
  of: string;
  advice: string;
}

const KiB = 1024;
const MiB = 1024 * KiB;

/*
 * What a run reads at most (docs/safety.md, Size caps), each one a 2 GB runner holds: a heap of
 * about 1 GiB, YAML taking 20 times its size (docs/performance.md); 32 MiB is 70,000 campaigns.
 */
export const CONFIG_FILE_LIMIT: ByteLimit = {
  bytes: 8 * MiB,
  of: "one config file",
  advice: "split it into several files in one directory",
};
export const CONFIG_TOTAL_LIMIT: ByteLimit = {
  bytes: 32 * MiB,
  of: "the config files of one run",
  advice: "plan the insertion orders in parts, naming fewer files or directories in each run",
};
export const DIALECT_FILE_LIMIT: ByteLimit = {
  bytes: 64 * KiB,
  of: "a dialect file",
  advice: "a dialect file holds `dialect:` and `x-` keys only",
};

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

/** `size` when known (a regular file's, before a byte is read), else it grew past the limit. */
export function tooLarge(limit: ByteLimit, size?: number): FileRefused {
  const is = size === undefined ? "is larger than" : `is ${size} bytes, over`;
  return new FileRefused(
    "FILE_TOO_LARGE",
    `${is} the ${describeBytes(limit.bytes)} doohctl reads from ${limit.of}: ${limit.advice}`,
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
  if (bytes % MiB === 0) return `${bytes / MiB} MiB`;
  return bytes % KiB === 0 ? `${bytes / KiB} KiB` : `${bytes} bytes`;
}

// O_NONBLOCK: opening a FIFO swapped in after a check returns at once instead of waiting for
// a writer; the descriptor is checked to be a regular file before a byte is read.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
const CHUNK = 1024 * 1024;

/**
 * A regular file's bytes, at most `limit.bytes`; FileRefused otherwise (ENOENT and the like
 * thrown as is): a file its size says is larger is refused before a byte is read. Synchronous:
 * a regular file's read does not wait on anyone (the open never waits on a FIFO).
 */
export function readRegularFileSync(path: string, limit: ByteLimit): Uint8Array {
  const maxBytes = limit.bytes;
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
    if (stats.size > maxBytes) throw tooLarge(limit, stats.size);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK, maxBytes + 1 - total));
      const bytesRead = readSync(fd, buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw tooLarge(limit);
      chunks.push(bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead));
    }
    return new Uint8Array(Buffer.concat(chunks, total));
  } finally {
    closeSync(fd);
  }
}

/** The tree a run trusts: the git work tree holding `cwd` (nearest `.git` above), else `cwd`, resolved. */
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
