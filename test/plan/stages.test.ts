/**
 * The plan's stages point one way, changes/ -> requests/ -> findings/ (ARCHITECTURE.md, The
 * plan's stages): Biome refuses, from each folder of src/plan, an import of a later stage, and
 * lets a stage read the earlier ones.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const STAGES = ["changes", "requests", "findings"];
/** Each folder of src/plan with the stages it may import. */
const MAY_IMPORT: Record<string, string[]> = {
  changes: [],
  requests: ["changes"],
  findings: ["changes", "requests"],
  saved: ["changes"],
};

describe("the plan's stages", () => {
  it("refuses an import of a later stage, citing ARCHITECTURE.md, and allows the earlier ones", () => {
    const copy = mkdtempSync(join(tmpdir(), "doohctl-stages-"));
    copyFileSync(join(root, "biome.json"), join(copy, "biome.json"));
    for (const from of Object.keys(MAY_IMPORT)) {
      const targets = STAGES.filter((to) => to !== from);
      const lines = targets.map((to, i) => `import { probe as p${i} } from "../${to}/target.js";`);
      mkdirSync(join(copy, "src", "plan", from), { recursive: true });
      writeFileSync(
        join(copy, "src", "plan", from, "probe.ts"),
        `${lines.join("\n")}\nexport const probes = [${targets.map((_, i) => `p${i}`).join(", ")}];\n`,
      );
    }
    const run = spawnSync(join(root, "node_modules", ".bin", "biome"), ["lint", "--reporter=json", "src"], {
      cwd: copy,
      encoding: "utf8",
    });
    const { diagnostics } = JSON.parse(run.stdout) as {
      diagnostics: {
        category: string;
        message: string;
        location: { path: string; start: { line: number } };
      }[];
    };
    const refused = diagnostics.map((d) => {
      const from = d.location.path.split("/")[2]!;
      const to = STAGES.filter((s) => s !== from)[d.location.start.line - 1];
      return `${from} -> ${to}: ${d.message}`;
    });
    const cite = "(ARCHITECTURE.md#the-plans-stages)";
    const expected = Object.entries(MAY_IMPORT).flatMap(([from, allowed]) =>
      STAGES.filter((to) => to !== from && !allowed.includes(to)).map((to) => `${from} -> ${to}`),
    );
    expect(refused.map((r) => r.split(":")[0]).sort()).toEqual(expected.sort());
    expect(refused.filter((r) => !r.includes(cite))).toEqual([]);
  });
});
