/**
 * The tests' users are those of test/helpers/users.ts (ARCHITECTURE.md#testing): no test
 * defines a `USER` or a constant `{ email: ... }` of its own. That the emulator starts only
 * through `emulatorWorld()` (test/helpers/world.ts) or `startCliAccount()`
 * (test/helpers/cli-account.ts) Biome holds (`noRestrictedImports` on test/ in biome.json).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const TEST = fileURLToPath(new URL("../", import.meta.url));
const USERS = "helpers/users.ts";
const SELF = "helpers/vocabulary.test.ts";

/** The code of a file, comments blanked (so a comment may name what it must not do). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** `file:line: text` of each user defined outside test/helpers/users.ts: a `USER`, or a constant `{ email: ... }`. */
function ownUsers(file: string, text: string): string[] {
  if (file === USERS) return [];
  return code(text)
    .split("\n")
    .flatMap((line, i) =>
      /^\s*(export\s+)?(const|let|var)\s+USER\b/.test(line) ||
      /^(export\s+)?const\s+\w+\s*(:[^=]+)?=\s*\{\s*email\s*:/.test(line) ||
      /^\s*export\s*\{[^}]*\bUSER\b[^}]*\}/.test(line)
        ? [`${file}:${i + 1}: ${line.trim()}`]
        : [],
    );
}

function testFiles(): { file: string; text: string }[] {
  return readdirSync(TEST, { recursive: true, encoding: "utf8" })
    .filter((f) => /\.(ts|mts|js|mjs)$/.test(f) && f !== SELF)
    .map((file) => ({ file, text: readFileSync(join(TEST, file), "utf8") }));
}

describe("the tests' users", () => {
  it("sees a user of a test's own or a re-exported one, and not what a comment names", () => {
    const text = [
      "// never const USER = here",
      "const USER = { email: 'a@doohctl.test', password: 'x' };",
      'export const BUYER = { email: "b@doohctl.test", password: "y" };',
      "export { USER };",
      "/* a comment: const USER = 1 */",
    ].join("\n");
    expect(ownUsers("x.test.ts", text)).toEqual([
      "x.test.ts:2: const USER = { email: 'a@doohctl.test', password: 'x' };",
      'x.test.ts:3: export const BUYER = { email: "b@doohctl.test", password: "y" };',
      "x.test.ts:4: export { USER };",
    ]);
    expect(ownUsers("helpers/users.ts", text)).toEqual([]);
  });

  it("defines its users once, in test/helpers/users.ts, and imports them from there", () => {
    const files = testFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(({ file, text }) => ownUsers(file, text))).toEqual([]);
  });
});
