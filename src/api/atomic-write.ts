/**
 * The one atomic write of doohctl (ARCHITECTURE.md, Where each rule lives): every file it
 * replaces (the session cache, the pacing log's compaction, the recovery record and lock,
 * pull's config files, a saved plan) goes through here. A temporary file
 * `.<name>.<pid>.<hex>.tmp` in the same directory is created exclusively and never through a
 * link (O_CREAT|O_EXCL|O_NOFOLLOW: a link or leftover planted at that name fails the write
 * instead of being followed), written, fsynced, renamed over the file (a rename replaces a
 * link at the path rather than following it), then the directory is fsynced: after a crash
 * the path holds either the old bytes or the new ones, never half a file.
 *
 * Why not the npm package write-file-atomic: it opens its temporary file without O_EXCL and
 * O_NOFOLLOW and never fsyncs the directory, and it takes no stream of chunks (a saved plan
 * is 274 MiB, written piece by piece). The emulator keeps its own write
 * (src/emulator/persistence.ts): it imports src/model only (ARCHITECTURE.md, Layers and their
 * arrows).
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { open, rename, rm } from "node:fs/promises";
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
  /**
   * Told of the temporary file before it exists and once it is gone: a command that can end
   * the process during a long write (Ctrl-C) removes what remains at exit (src/cli/plan-file.ts).
   */
  track?: { add(temp: string): void; delete(temp: string): void };
}

export type Chunk = string | Uint8Array;

/** The temporary file beside `path`: one naming scheme for every writer. */
export function temporaryPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
}

/** Replaces `path` with `data`, on disk before this returns. */
export function writeFileAtomicSync(path: string, data: Chunk, options: AtomicWriteOptions = {}): void {
  const mode = options.mode ?? 0o600;
  const temp = temporaryPathFor(path);
  options.track?.add(temp);
  let created = false;
  try {
    const fd = openSync(temp, CREATE_NEW, mode);
    created = true;
    try {
      if (!options.umask) fchmodSync(fd, mode);
      const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    // Only the file this write created: what was planted at its name is not ours to remove.
    if (created) rmSync(temp, { force: true });
    throw error;
  } finally {
    options.track?.delete(temp);
  }
  syncDirectory(dirname(path));
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
  const mode = options.mode ?? 0o600;
  const temp = temporaryPathFor(path);
  // Tracked before it exists: an exit as soon as it is created still removes it.
  options.track?.add(temp);
  let created = false;
  try {
    const handle = await open(temp, CREATE_NEW, mode);
    created = true;
    try {
      if (!options.umask) await handle.chmod(mode);
      await writeChunks(handle, typeof data === "string" || data instanceof Uint8Array ? [data] : data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    if (created) await rm(temp, { force: true });
    throw error;
  } finally {
    options.track?.delete(temp);
  }
  syncDirectory(dirname(path));
}

type Handle = Awaited<ReturnType<typeof open>>;

async function writeChunks(handle: Handle, chunks: Iterable<Chunk> | AsyncIterable<Chunk>): Promise<void> {
  const buffer = Buffer.allocUnsafe(WRITE_BYTES);
  let used = 0;
  const writeAll = async (bytes: Uint8Array, length: number) => {
    for (let at = 0; at < length; ) at += (await handle.write(bytes, at, length - at)).bytesWritten;
  };
  for await (const chunk of chunks) {
    const bytes = typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length;
    if (used + bytes > WRITE_BYTES) {
      await writeAll(buffer, used);
      used = 0;
    }
    if (bytes > WRITE_BYTES) await writeAll(typeof chunk === "string" ? Buffer.from(chunk) : chunk, bytes);
    else if (typeof chunk === "string") used += buffer.write(chunk, used, "utf8");
    else {
      buffer.set(chunk, used);
      used += bytes;
    }
  }
  await writeAll(buffer, used);
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
