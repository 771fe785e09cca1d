/**
 * The README's first screen (issue 45): the two commands a newcomer runs stay at the very top,
 * and a first config follows them within the first screen, before the install details. The
 * config shown there is a valid one.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { bufferIO } from "../helpers/io.js";
import { ROOT } from "../proof/binary.js";

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const LINES = README.split("\n");
/** What a browser or a terminal shows before any scrolling, generously. */
const FIRST_SCREEN = 35;

const lineOf = (text: string) => LINES.indexOf(text) + 1;

describe("the README's first screen", () => {
  it("opens with the two commands, as they are", () => {
    expect(LINES.slice(4, 8)).toEqual([
      "```sh",
      "npm ci && npm run demo     # doohctl's main job on the embedded emulator: about 20 seconds",
      "npm test                   # the whole test suite: a few minutes (see below), not a hang",
      "```",
    ]);
  });

  it("shows a first config within the first screen, and the install details only after it", () => {
    const heading = lineOf("## Your first config");
    const block = LINES.indexOf("```yaml", heading);
    const end = LINES.indexOf("```", block + 1) + 1;
    expect(heading).toBeGreaterThan(8);
    expect(block).toBeGreaterThan(heading);
    expect(end, "the config block ends on the first screen").toBeLessThanOrEqual(FIRST_SCREEN);
    expect(lineOf("## Installing")).toBeGreaterThan(end);
  });

  it("shows a config that validates", async () => {
    const from = LINES.indexOf("```yaml", lineOf("## Your first config"));
    const config = LINES.slice(from + 1, LINES.indexOf("```", from + 1)).join("\n");
    const dir = mkdtempSync(join(tmpdir(), "doohctl-readme-"));
    writeFileSync(join(dir, "doohctl.yaml"), `${config}\n`);
    const io = bufferIO({ cwd: dir, env: {} });
    expect(await run(["validate"], io), io.err()).toBe(0);
    expect(io.out()).toBe("valid: 1 insertion order, 1 campaign, 0 creatives (1 file)\n");
  });
});
