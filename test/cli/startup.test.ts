import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/program.js";
import { bufferIO } from "../helpers/io.js";
import { ensureBuilt, MAIN, ROOT } from "../proof/binary.js";

const HOOK = join(import.meta.dirname, "..", "helpers", "module-log.mjs");

/**
 * What the built CLI loads for `argv`, run in `cwd`: the files it resolves (the bundle's
 * chunks, Node's built-ins) and the source modules those chunks hold, each chunk's source map
 * listing them (scripts/bundle.ts), as paths from the repository's root.
 */
function modulesLoaded(argv: string[], cwd: string): { files: string[]; modules: string[] } {
  const log = join(mkdtempSync(join(tmpdir(), "doohctl-startup-")), "modules.txt");
  writeFileSync(log, "");
  execFileSync(process.execPath, ["--import", HOOK, MAIN, ...argv], {
    cwd,
    env: { ...process.env, DOOHCTL_MODULE_LOG: log, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const files = [
    ...new Set(
      readFileSync(log, "utf8")
        .split("\n")
        .filter((url) => url.startsWith("file:")),
    ),
  ].map((url) => fileURLToPath(url));
  const modules = files.flatMap((file) => {
    if (!existsSync(`${file}.map`)) return [];
    const map = JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] };
    return map.sources.map((source) => relative(ROOT, resolve(dirname(file), source)));
  });
  return { files, modules };
}

const HEAVY = [/^node_modules\/undici\//, /^node_modules\/ajv/, /^node_modules\/yaml\//, /^src\/emulator\//];

describe("start-up: a command loads what it uses (docs/performance.md, Start-up)", () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it("doohctl --help loads the bundle alone, with no HTTP client, schema validator, YAML parser or emulator", () => {
    const { files, modules } = modulesLoaded(["--help"], tmpdir());
    // The bundle holds every package it runs: nothing is resolved from node_modules.
    expect(files.filter((file) => dirname(file) !== dirname(MAIN))).toEqual([]);
    expect(modules.some((path) => path.startsWith("node_modules/commander/"))).toBe(true);
    expect(modules.filter((path) => HEAVY.some((heavy) => heavy.test(path)))).toEqual([]);
    expect(modules.filter((path) => path.startsWith("src/cli/commands/"))).toEqual([]);
  });

  it("doohctl validate loads the YAML parser and the schema's built validator, but no schema compiler, HTTP client, emulator or plan stage", () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-startup-"));
    writeFileSync(join(dir, "doohctl.yaml"), "version: 1\ninsertion_orders: []\n");
    const { files, modules } = modulesLoaded(["validate"], dir);
    expect(files.filter((file) => dirname(file) !== dirname(MAIN))).toEqual([]);
    expect(modules.some((path) => path.startsWith("node_modules/yaml/"))).toBe(true);
    expect(modules).toContain("src/config/config-schema.generated.ts");
    // The validators are compiled when doohctl is built (scripts/gen-validators.ts).
    expect(modules.filter((path) => /^node_modules\/ajv\/dist\/(?!runtime\/)/.test(path))).toEqual([]);
    expect(modules.filter((path) => /^node_modules\/undici\/|^src\/emulator\//.test(path))).toEqual([]);
    // Of the plan, only the finding catalogue (--allow) and the words of DOOH803: no stage of it.
    const plan = new Set(modules.flatMap((path) => path.split("src/plan/").slice(1)));
    expect([...plan].sort()).toEqual(["finding-catalogue.ts", "findings/commitments.ts"]);
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
