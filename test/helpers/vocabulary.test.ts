/**
 * The tests' one vocabulary (ARCHITECTURE.md#testing): the emulator starts
 * through `emulatorWorld()` (test/helpers/world.ts) or `startCliAccount()`
 * (test/helpers/cli-account.ts), and the users are those of test/helpers/users.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const TEST = fileURLToPath(new URL("../", import.meta.url));
const STARTERS = ["helpers/world.ts", "helpers/cli-account.ts"];
const USERS = "helpers/users.ts";
const SELF = "helpers/vocabulary.test.ts";

/** The code of a file, comments blanked (so a comment may name what it must not do). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** `file:line: text` of each line that starts the emulator other than through the two helpers. */
function startsByHand(file: string, text: string): string[] {
  if (STARTERS.includes(file)) return [];
  return code(text)
    .split("\n")
    .flatMap((line, i) =>
      /\bstartEmulator\b|\bnew Emulator\(|\bcontrolHandler\(/.test(line)
        ? [`${file}:${i + 1}: ${line.trim()}`]
        : [],
    );
}

/** `file:line: text` of each user defined outside test/helpers/users.ts: a `USER`, or a constant `{ email: ... }`. */
function ownUsers(file: string, text: string): string[] {
  if (file === USERS) return [];
  return code(text)
    .split("\n")
    .flatMap((line, i) =>
      /^\s*(export\s+)?(const|let|var)\s+USER\b/.test(line) ||
      /^(export\s+)?const\s+\w+\s*(:[^=]+)?=\s*\{\s*email\s*:/.test(line)
        ? [`${file}:${i + 1}: ${line.trim()}`]
        : [],
    );
}

function testFiles(): { file: string; text: string }[] {
  return readdirSync(TEST, { recursive: true, encoding: "utf8" })
    .filter((f) => /\.(ts|mts|js|mjs)$/.test(f) && f !== SELF)
    .map((file) => ({ file, text: readFileSync(join(TEST, file), "utf8") }));
}

describe("the tests' vocabulary", () => {
  it("sees an emulator started by hand and a user of a test's own, and not what a comment names", () => {
    const text = [
      'import { startEmulator } from "../../src/emulator/index.js";',
      "// never startEmulator( here",
      "const USER = { email: 'a@doohctl.test', password: 'x' };",
      'export const BUYER = { email: "b@doohctl.test", password: "y" };',
      "  emulator = await startEmulator({ port: 0 });",
      "/* a comment: const USER = 1 */",
    ].join("\n");
    expect(startsByHand("x.test.ts", text)).toEqual([
      'x.test.ts:1: import { startEmulator } from "../../src/emulator/index.js";',
      "x.test.ts:5: emulator = await startEmulator({ port: 0 });",
    ]);
    expect(ownUsers("x.test.ts", text)).toEqual([
      "x.test.ts:3: const USER = { email: 'a@doohctl.test', password: 'x' };",
      'x.test.ts:4: export const BUYER = { email: "b@doohctl.test", password: "y" };',
    ]);
    expect(startsByHand("helpers/world.ts", text)).toEqual([]);
    expect(ownUsers("helpers/users.ts", text)).toEqual([]);
  });

  it("starts the emulator only through emulatorWorld() and startCliAccount()", () => {
    const files = testFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(({ file, text }) => startsByHand(file, text))).toEqual([]);
  });

  it("defines its users once, in test/helpers/users.ts", () => {
    expect(testFiles().flatMap(({ file, text }) => ownUsers(file, text))).toEqual([]);
  });
});
