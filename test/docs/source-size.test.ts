/**
 * docs/development.md, Layout: no source file over 400 lines, and src as a whole at most 35,000
 * lines. A check, not a goal: a feature that grows src pays for it by what it makes needless.
 * Generated validators (`*.generated.ts`, written at build time) are not counted.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const FILE_LINES = 400;
const SRC_LINES = 35_000;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".generated.ts") ? [path] : [];
  });
}

const lines = (path: string) => readFileSync(path, "utf8").split("\n").length - 1;

describe("the size of src", () => {
  const files = sources(join(root, "src")).map((path) => ({
    file: relative(root, path),
    lines: lines(path),
  }));

  it(`has no file over ${FILE_LINES} lines`, () => {
    expect(files.filter((f) => f.lines > FILE_LINES)).toEqual([]);
  });

  it(`is at most ${SRC_LINES.toLocaleString("en-US")} lines`, () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.reduce((sum, f) => sum + f.lines, 0)).toBeLessThanOrEqual(SRC_LINES);
  });
});
