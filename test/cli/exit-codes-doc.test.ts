import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";

const ROOT = join(import.meta.dirname, "..", "..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

describe("the documented exit codes agree with io.ts's EXIT", () => {
  it("docs/apply.md puts an interrupted apply under 130 and 143 only, never under 1", () => {
    const line = /Exit codes: (.*?)\n\n/s.exec(read("docs/apply.md"))?.[1]?.replace(/\n/g, " ") ?? "";
    const clauses = line.split(";").map((c) => c.trim());
    const one = clauses.find((c) => c.startsWith("`1`"));
    const signals = clauses.find((c) => c.startsWith(`\`${EXIT.SIGINT}\``));
    expect(one).toBeDefined();
    expect(one).not.toMatch(/interrupt/i);
    expect(signals).toMatch(new RegExp(`\`${EXIT.SIGTERM}\` interrupted by SIGINT or SIGTERM`));
  });

  it("README's exit 1 row does not list an interruption, and 130 and 143 have their rows", () => {
    const readme = read("README.md");
    const row = (code: number) => new RegExp(`^\\| ${code} \\|(.*)$`, "m").exec(readme)?.[1] ?? "";
    expect(row(EXIT.error)).not.toMatch(/interrupt/i);
    expect(row(EXIT.SIGINT)).toMatch(/Ctrl-C \(SIGINT\)/);
    expect(row(EXIT.SIGTERM)).toMatch(/SIGTERM/);
  });
});
