/**
 * The one atomic write (src/api/atomic-write.ts): a temporary file beside the target,
 * created O_EXCL|O_NOFOLLOW, fsynced, renamed, the directory fsynced. Every writer of a file
 * doohctl replaces goes through it.
 */
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeFileAtomic, writeFileAtomicSync } from "../../src/api/atomic-write.js";

const scratch = () => mkdtempSync(join(tmpdir(), "doohctl-atomic-"));

describe("the one atomic write", () => {
  it("writes mode 0600 by default whatever the umask, and leaves no temporary file", async () => {
    const dir = scratch();
    writeFileAtomicSync(join(dir, "a.json"), "one\n");
    await writeFileAtomic(join(dir, "b.json"), "two\n");
    expect(readFileSync(join(dir, "a.json"), "utf8")).toBe("one\n");
    expect(readFileSync(join(dir, "b.json"), "utf8")).toBe("two\n");
    expect(statSync(join(dir, "a.json")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "b.json")).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(["a.json", "b.json"]);
  });

  it("gives an exact mode (0640 stays 0640), or the umask's with umask: true", async () => {
    const dir = scratch();
    writeFileAtomicSync(join(dir, "kept.yaml"), "x\n", { mode: 0o640 });
    expect(statSync(join(dir, "kept.yaml")).mode & 0o777).toBe(0o640);
    const umask = process.umask();
    await writeFileAtomic(join(dir, "plain.json"), "x\n", { mode: 0o666, umask: true });
    expect(statSync(join(dir, "plain.json")).mode & 0o777).toBe(0o666 & ~umask);
  });

  it("replaces a link at the path, never writes through it", () => {
    const dir = scratch();
    const victim = join(scratch(), "unrelated.txt");
    writeFileSync(victim, "untouched\n");
    symlinkSync(victim, join(dir, "state.json"));
    writeFileAtomicSync(join(dir, "state.json"), "mine\n");
    expect(readFileSync(victim, "utf8")).toBe("untouched\n");
    expect(readFileSync(join(dir, "state.json"), "utf8")).toBe("mine\n");
    expect(statSync(join(dir, "state.json")).isFile()).toBe(true);
  });

  it("exclusive: writes only where no file is, refusing one that appeared, with no temporary file left", () => {
    const dir = scratch();
    writeFileAtomicSync(join(dir, "new.md"), "new\n", { exclusive: true });
    expect(readFileSync(join(dir, "new.md"), "utf8")).toBe("new\n");
    writeFileSync(join(dir, "theirs.md"), "theirs\n");
    expect(() => writeFileAtomicSync(join(dir, "theirs.md"), "mine\n", { exclusive: true })).toThrow(
      expect.objectContaining({ code: "EEXIST" }),
    );
    expect(readFileSync(join(dir, "theirs.md"), "utf8")).toBe("theirs\n");
    expect(readdirSync(dir).sort()).toEqual(["new.md", "theirs.md"]);
  });

  it("names its temporary file in one scheme, and fails rather than follow a link planted at it", async () => {
    const dir = scratch();
    const victim = join(scratch(), "unrelated.txt");
    writeFileSync(victim, "untouched\n");
    const seen: string[] = [];
    // The tracker is told of the name before the file is created: plant a link there.
    const planting = {
      add: (temp: string) => {
        seen.push(temp);
        symlinkSync(victim, temp);
      },
      delete: () => undefined,
    };
    expect(() => writeFileAtomicSync(join(dir, "state.json"), "mine\n", { track: planting })).toThrow(
      /EEXIST/,
    );
    await expect(writeFileAtomic(join(dir, "plan.json"), "mine\n", { track: planting })).rejects.toThrow(
      /EEXIST/,
    );
    expect(readFileSync(victim, "utf8")).toBe("untouched\n");
    for (const temp of seen) {
      expect(temp.slice(dir.length + 1)).toMatch(
        new RegExp(`^\\.(state|plan)\\.json\\.${process.pid}\\.[0-9a-f]{12}\\.tmp$`),
      );
      // What was planted is not this write's to remove.
      expect(readlinkSync(temp)).toBe(victim);
    }
    expect(seen).toHaveLength(2);
  });

  it("writes a stream of chunks, strings and bytes, across its buffer", async () => {
    const dir = scratch();
    const big = "x".repeat(1024 * 1024 + 7);
    async function* chunks() {
      yield "head\n";
      yield Buffer.from("bytes\n");
      yield big;
      yield "tail\n";
    }
    await writeFileAtomic(join(dir, "plan.json"), chunks());
    expect(readFileSync(join(dir, "plan.json"), "utf8")).toBe(`head\nbytes\n${big}tail\n`);
  });

  it("leaves the previous file and no temporary file when the stream throws", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "plan.json"), "previous\n");
    const tracked = new Set<string>();
    function* chunks() {
      yield "half";
      throw new Error("too large");
    }
    await expect(
      writeFileAtomic(join(dir, "plan.json"), chunks(), {
        track: { add: (t) => tracked.add(t), delete: (t) => tracked.delete(t) },
      }),
    ).rejects.toThrow("too large");
    expect(readFileSync(join(dir, "plan.json"), "utf8")).toBe("previous\n");
    expect(readdirSync(dir)).toEqual(["plan.json"]);
    expect(tracked.size).toBe(0);
  });
});
