/** Nothing in a named config directory is skipped in silence: subdirectories with YAML, `*.json`. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { ConfigIssue } from "../../src/config/issues.js";
import { loadConfig } from "../../src/config/load.js";
import { bufferIO } from "../helpers/io.js";

const CONFIG = "version: 1\ninsertion_orders: [{ id: '1001' }]\n";

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "doohctl-skipped-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("config directories: what is not read is said", () => {
  it("warns, naming them, of subdirectories holding YAML and of *.json files", async () => {
    const dir = tree({
      "conf/a.yaml": CONFIG,
      "conf/emea/b.yaml": CONFIG,
      "conf/apac/c.yml": CONFIG,
      "conf/notes/readme.txt": "",
      "conf/old.json": "{}",
    });
    const warnings: ConfigIssue[] = [];
    const state = await loadConfig(["conf"], { cwd: dir, onWarning: (w) => warnings.push(w) });
    expect(state.files.map((f) => f.path)).toEqual(["conf/a.yaml"]);
    expect(warnings.map((w) => [w.file, w.code])).toEqual([
      ["conf", "YAML_IN_SUBDIRECTORY"],
      ["conf", "JSON_NOT_READ"],
    ]);
    expect(warnings[0]!.message).toContain("subdirectories apac/, emea/ hold YAML files");
    expect(warnings[0]!.message).toContain("(conf/apac conf/emea)");
    expect(warnings[1]!.message).toContain("not read: old.json");
  });

  it("refuses a directory whose YAML is all in subdirectories, naming them (never 0 insertion orders)", async () => {
    const dir = tree({ "conf/emea/b.yaml": CONFIG, "conf/plan.json": "{}" });
    const io = bufferIO({ cwd: dir });
    expect(await run(["validate", "conf"], io)).toBe(1);
    expect(io.err()).toContain("conf: directory has no .yaml or .yml files: name a config file");
    expect(io.err()).toContain("YAML files are in emea/: name those");
    expect(io.err()).toContain("plan.json is not read");
  });

  it("validate prints the warning on stderr and still validates what it reads", async () => {
    const dir = tree({ "conf/a.yaml": CONFIG, "conf/emea/b.yaml": CONFIG });
    const io = bufferIO({ cwd: dir });
    expect(await run(["validate", "conf"], io)).toBe(0);
    expect(io.err()).toMatch(/^warning: conf: not read: subdirectory emea\/ holds YAML files/);
    expect(io.out()).toContain("valid: 1 insertion order");
  });
});
