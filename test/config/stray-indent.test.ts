/**
 * One line indented wrongly is one error at that line (src/config/yaml/stray-indent.ts), not
 * yaml's cascade of errors down the file with a false "appears twice".
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseYaml } from "../../src/config/yaml/read.js";

const EXAMPLE = join(import.meta.dirname, "..", "..", "examples", "quickstart", "doohctl.yaml");
const LINES = readFileSync(EXAMPLE, "utf8").split("\n");

/** The example with line `at` (0-based) moved `by` spaces to the left. */
function deIndented(at: number, by: number): string {
  const lines = [...LINES];
  lines[at] = (lines[at] ?? "").slice(by);
  return lines.join("\n");
}

describe("a line indented unlike its map", () => {
  it("a campaign key moved to its insertion order's column is one error there, with the indentation to use", () => {
    const at = LINES.findIndex((l) => /^ {8}budget_impressions:/.test(l));
    const { issues, usable } = parseYaml(deIndented(at, 4), "doohctl.yaml");
    expect(usable).toBe(false);
    expect(issues).toEqual([
      expect.objectContaining({
        line: at + 1,
        column: 5,
        code: "YAML_SYNTAX",
        message:
          "YAML: this line is indented by 4 spaces, which breaks the lines after it: indent it by 8 spaces",
      }),
    ]);
  });

  it("every line of the quickstart example moved 2 spaces left gives at most one error, never a duplicate key", () => {
    const noisy: string[] = [];
    LINES.forEach((line, at) => {
      if (!/^ {2,}\S/.test(line) || line.trimStart().startsWith("#")) return;
      const { issues } = parseYaml(deIndented(at, 2), "doohctl.yaml");
      if (issues.length > 1 || issues.some((i) => i.code === "DUPLICATE_KEY")) {
        noisy.push(`line ${at + 1}: ${issues.map((i) => `${i.line}:${i.code}`).join(" ")}`);
      }
    });
    expect(noisy).toEqual([]);
  });
});
