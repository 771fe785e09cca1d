/**
 * The files that share their worker's module graph (test/setup/isolation.ts) leave nothing
 * process-wide behind: a fake clock, a module mock or a process listener left by one file would
 * change what the files after it in the same worker see, and a test would pass or fail by the
 * order vitest happened to pick.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isIsolated, PROCESS_WIDE } from "./isolation.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Vitest's global setup runs in its own process, before the workers: not a shared file. */
const GLOBAL_SETUP = "test/setup/temp-root.ts";
/** This file's samples and the patterns' own file. */
const SELF = ["test/setup/isolation.ts", "test/setup/isolation.test.ts"];

/** The code of a file, comments blanked (so a comment may name what it must not do). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");

/** `file: what` for each process-wide change in `text`. */
const changes = (file: string, text: string) =>
  Object.entries(PROCESS_WIDE)
    .filter(([, pattern]) => pattern.test(code(text)))
    .map(([what]) => `${file}: ${what}`);

describe("the files sharing a module graph", () => {
  it("sees each process-wide change, and not reads or what a comment names", () => {
    const text = [
      "vi.useFakeTimers();",
      'vi.mock("../../src/apply/lock.js");',
      'process.on("warning", listen);',
      'process.env.DOOHCTL_STATE_DIR = "/x";',
      'process.chdir("/tmp");',
      "process.umask(0o077);",
      'vi.stubGlobal("fetch", f);',
    ].join("\n");
    expect(changes("x.test.ts", text)).toEqual([
      "x.test.ts: a module mock",
      "x.test.ts: fake timers",
      "x.test.ts: a process listener",
      "x.test.ts: a change of directory",
      "x.test.ts: a change of process.env",
      "x.test.ts: a stubbed global",
      "x.test.ts: a process-wide umask",
    ]);
    const reads = [
      "const env = { ...process.env, NO_COLOR: '1' };",
      "if (process.env.FC_SEED === '1') {}",
      "const umask = process.umask();",
      "// vi.useFakeTimers() is not for this file",
    ].join("\n");
    expect(changes("x.test.ts", reads)).toEqual([]);
  });

  it("change nothing process-wide: the files that do are isolated (test/setup/isolation.ts)", () => {
    const found = readdirSync(join(ROOT, "test"), { recursive: true, encoding: "utf8" })
      .map((f) => `test/${f.split("\\").join("/")}`)
      .filter((file) => /\.(ts|mts|js|mjs)$/.test(file) && !isIsolated(file))
      .filter((file) => file !== GLOBAL_SETUP && !SELF.includes(file) && !file.includes("/fixtures/"))
      .flatMap((file) => changes(file, readFileSync(join(ROOT, file), "utf8")));
    expect(found).toEqual([]);
  });
});
