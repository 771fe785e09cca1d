/**
 * `doohctl examples [NAME]` (README, Installing): where the package's own examples are, from
 * the package's location, so it answers the same for every install route (a global install,
 * `--prefix`, a dependency, a checkout); test/docs/runnable.test.ts runs it from a
 * `--global --prefix` install, scripts/check-install.sh from each route of the README.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { bufferIO } from "../helpers/io.js";
import { ensureBuilt, MAIN, ROOT } from "../proof/binary.js";

describe("doohctl examples", () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it("prints the package's examples directory, wherever it runs from", async () => {
    const io = bufferIO({ cwd: mkdtempSync(join(tmpdir(), "doohctl-examples-")) });
    expect(await run(["examples"], io), io.err()).toBe(0);
    expect(io.out()).toBe(`${join(ROOT, "examples")}\n`);
    // The built CLI, from a directory of its own: the same place (dist/src/bin is deeper than src/cli).
    const built = execFileSync(process.execPath, [MAIN, "examples", "quickstart"], {
      cwd: tmpdir(),
      encoding: "utf8",
    });
    expect(built).toBe(`${join(ROOT, "examples", "quickstart")}\n`);
    expect(existsSync(join(built.trim(), "doohctl.yaml"))).toBe(true);
  });

  it("refuses a name it does not ship, naming those it does, and prints no path", async () => {
    const io = bufferIO();
    expect(await run(["examples", "../schemas"], io)).toBe(1);
    expect(io.out()).toBe("");
    expect(io.err()).toBe(
      `doohctl examples: no example ../schemas: name one of emulator-seed.json, github, gitlab, multi-file, policy, quickstart (in ${join(ROOT, "examples")})\n`,
    );
  });
});
