/**
 * The one atomic write of doohctl (ARCHITECTURE.md, Where each rule lives): every file it
 * replaces goes through here. A temporary `.<name>.<pid>.<hex>.tmp` beside it is created
 * O_CREAT|O_EXCL|O_NOFOLLOW (a link or leftover planted at that name fails the write instead of
 * being followed), written, fsynced, renamed over the file (which replaces a link rather than
 * following it), then the directory is fsynced: after a crash, the old bytes or the new.
 *
 * Not the npm write-file-atomic: it opens without O_EXCL and O_NOFOLLOW, never fsyncs the
 * directory, and takes no stream of chunks (a saved plan is 274 MiB). The emulator keeps its
 * own (src/emulator/persistence.ts): it imports src/model only (ARCHITECTURE.md).
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  linkSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";

const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** The buffer a stream of chunks is written through: few system calls, no joined strings. */
const WRITE_BYTES = 1024 * 1024;

export interface AtomicWriteOptions {
  /**
   * The file's mode (default 0600): set exactly (fchmod, whatever the umask), or, with
   * `umask: true`, as a plain create would give it (`mode` less the umask).
   */
  mode?: number;
  umask?: boolean;
  /** Told of the temporary file before it exists and once gone, to remove at exit (src/cli/plan-file.ts). */
  track?: { add(temp: string): void; delete(temp: string): void };
  /** Only where no file is: linked in (EEXIST) rather than renamed, so a file that appeared stays. */
  exclusive?: boolean;
}

export type Chunk = string | Uint8Array;

/** The temporary file beside `path`: one naming scheme for every writer. */
export function temporaryPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
}

/** Replaces `path` with `data`, on disk before this returns. */
export function writeFileAtomicSync(path: string, data: Chunk, options: AtomicWriteOptions = {}): void {
  const replacement = new Replacement(path, options);
  try {
    replacement.write(data);
  } catch (error) {
    replacement.abort();
    throw error;
  }
  replacement.commit();
}

/**
 * Replaces `path` with `data`, which may be a stream of chunks (a generator that throws
 * leaves `path` as it was and no temporary file behind).
 */
export async function writeFileAtomic(
  path: string,
  data: Chunk | Iterable<Chunk> | AsyncIterable<Chunk>,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const replacement = new Replacement(path, options);
  try {
    if (typeof data === "string" || data instanceof Uint8Array) replacement.write(data);
    else {
      for await (const chunk of data) {
        // After each full buffer, a turn of the event loop: a Ctrl-C during a long write is
        // handled now (src/cli/plan-file.ts removes the temporary file), not at its end.
        if (replacement.write(chunk)) await new Promise((resolve) => setImmediate(resolve));
      }
    }
  } catch (error) {
    replacement.abort();
    throw error;
  }
  replacement.commit();
}

/**
 * One replacement of `path`: its temporary file filled through a buffer, then committed (fsync,
 * rename, directory fsync) or aborted (removed). Synchronous writes; `show --overflow` uses it directly.
 */
export class Replacement {
  private readonly temp: string;
  private fd: number | undefined;
  /** Whether the temporary file is ours and still there. */
  private created = false;
  private readonly buffer = Buffer.allocUnsafe(WRITE_BYTES);
  private used = 0;

  constructor(
    private readonly path: string,
    private readonly options: AtomicWriteOptions,
  ) {
    const mode = options.mode ?? 0o600;
    this.temp = temporaryPathFor(path);
    // Tracked before it exists: an exit as soon as it is created still removes it.
    options.track?.add(this.temp);
    try {
      this.fd = openSync(this.temp, CREATE_NEW, mode);
      this.created = true;
      if (!options.umask) fchmodSync(this.fd, mode);
    } catch (error) {
      this.abort();
      throw error;
    }
  }

  /** Adds `chunk`; true when it went to the file (a full buffer or a large chunk). */
  write(chunk: Chunk): boolean {
    const bytes = typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length;
    const flushed = this.used + bytes > WRITE_BYTES;
    if (flushed) this.flush();
    if (bytes > WRITE_BYTES) {
      this.writeAll(typeof chunk === "string" ? Buffer.from(chunk) : chunk, bytes);
      return true;
    }
    if (typeof chunk === "string") this.used += this.buffer.write(chunk, this.used, "utf8");
    else {
      this.buffer.set(chunk, this.used);
      this.used += bytes;
    }
    return flushed;
  }

  commit(): void {
    try {
      this.flush();
      fsyncSync(this.fd!);
      closeSync(this.fd!);
      this.fd = undefined;
      if (this.options.exclusive) {
        linkSync(this.temp, this.path);
        rmSync(this.temp);
      } else renameSync(this.temp, this.path);
      this.created = false;
    } catch (error) {
      this.abort();
      throw error;
    }
    this.options.track?.delete(this.temp);
    syncDirectory(dirname(this.path));
  }

  /** Only the file this write created: what was planted at its name is not ours to remove. */
  abort(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    if (this.created) rmSync(this.temp, { force: true });
    this.created = false;
    this.options.track?.delete(this.temp);
  }

  private flush(): void {
    this.writeAll(this.buffer, this.used);
    this.used = 0;
  }

  private writeAll(bytes: Uint8Array, length: number): void {
    for (let at = 0; at < length; ) at += writeSync(this.fd!, bytes, at, length - at);
  }
}

/** The rename is durable once the directory is: fsync it too. */
function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, constants.O_RDONLY);
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some filesystems refuse to fsync a directory; the file itself is synced.
  }
}
