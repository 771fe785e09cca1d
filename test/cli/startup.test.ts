import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/program.js";
import { bufferIO } from "../helpers/io.js";
import { ensureBuilt, MAIN } from "../proof/binary.js";

const HOOK = join(import.meta.dirname, "..", "helpers", "module-log.mjs");

/** The module URLs the built CLI resolves for `argv`, run in `cwd`. */
function modulesLoaded(argv: string[], cwd: string): string[] {
  const log = join(mkdtempSync(join(tmpdir(), "doohctl-startup-")), "modules.txt");
  writeFileSync(log, "");
  execFileSync(process.execPath, ["--import", HOOK, MAIN, ...argv], {
    cwd,
    env: { ...process.env, DOOHCTL_MODULE_LOG: log, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return readFileSync(log, "utf8").split("\n").filter(Boolean);
}

const HEAVY = [
  /\/node_modules\/undici\//,
  /\/node_modules\/ajv/,
  /\/node_modules\/yaml\//,
  /\/src\/emulator\//,
];

describe("start-up: a command loads what it uses (docs/performance.md, Start-up)", () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it("doohctl --help loads no HTTP client, schema validator, YAML parser or emulator", () => {
    const loaded = modulesLoaded(["--help"], tmpdir());
    expect(loaded.some((url) => url.includes("/commander/"))).toBe(true);
    expect(loaded.filter((url) => HEAVY.some((heavy) => heavy.test(url)))).toEqual([]);
    expect(loaded.filter((url) => url.includes("/cli/commands/"))).toEqual([]);
  });

  it("doohctl validate loads the YAML parser and the schema's built validator, but no schema compiler, HTTP client, emulator or plan stage", () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-startup-"));
    writeFileSync(join(dir, "doohctl.yaml"), "version: 1\ninsertion_orders: []\n");
    const loaded = modulesLoaded(["validate"], dir);
    expect(loaded.some((url) => url.includes("/node_modules/yaml/"))).toBe(true);
    expect(loaded.some((url) => url.endsWith("/config/config-schema.generated.js"))).toBe(true);
    // The validators are compiled when doohctl is built (scripts/gen-validators.ts).
    expect(loaded.filter((url) => /\/node_modules\/ajv\/dist\/(?!runtime\/)/.test(url))).toEqual([]);
    expect(loaded.filter((url) => /\/node_modules\/undici\/|\/src\/emulator\//.test(url))).toEqual([]);
    // Of the plan, only the finding catalogue (--allow) and the words of DOOH803: no stage of it.
    const plan = new Set(loaded.flatMap((url) => url.split("/src/plan/").slice(1)));
    expect([...plan].sort()).toEqual(["finding-catalogue.js", "findings/commitments.js"]);
  });

  it("a command's own help says the line doohctl --help lists for it", async () => {
    const { run } = await import("../../src/cli/program.js");
    for (const entry of COMMANDS) {
      const io = bufferIO();
      expect(await run(["help", entry.name], io), entry.name).toBe(0);
      expect(io.out().replace(/\s+/g, " "), entry.name).toContain(entry.summary);
    }
  });

  it("doohctl help plan shows plan's own options, loaded for it", async () => {
    const { run } = await import("../../src/cli/program.js");
    const io = bufferIO();
    await run(["help", "plan"], io);
    expect(io.out()).toContain("--detailed-exitcode");
  });
});
