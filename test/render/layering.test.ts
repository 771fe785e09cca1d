import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const RENDER = fileURLToPath(new URL("../../src/render/", import.meta.url));

/**
 * Values render may take from plan/: the phase names are a constant table of the Plan's own
 * vocabulary (src/plan/types.ts), not a decision. Anything else is computed by the caller
 * and passed in as data (ARCHITECTURE.md#layers-and-their-arrows).
 */
const ALLOWED_VALUES: Record<string, readonly string[]> = { "../plan/types.js": ["PHASES"] };

/** `file: name from module` for each value (not `type`) imported or re-exported from plan/. */
function planValueImports(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^(import|export)\s+(type\s+)?([^;]*?)\s+from\s+"(\.\.\/plan\/[^"]+)"/gms)) {
    const [, , typeOnly, clause = "", module = ""] = m;
    if (typeOnly) continue;
    const braces = /\{([^}]*)\}/.exec(clause);
    const outside = clause
      .replace(/\{[^}]*\}/, "")
      .replace(/,/g, " ")
      .trim();
    const names = [
      ...(outside === "" ? [] : [outside]),
      ...(braces?.[1] ?? "")
        .split(",")
        .map((n) => n.trim())
        .filter((n) => n !== "" && !n.startsWith("type ")),
    ];
    for (const name of names) {
      if (!(ALLOWED_VALUES[module] ?? []).includes(name)) out.push(`${file}: ${name} from ${module}`);
    }
  }
  return out;
}

describe("src/render takes plain data", () => {
  it("sees a value import from plan/, and lets `import type` and type-only names pass", () => {
    const text = [
      'import { deactivates } from "../plan/changes.js";',
      'import type { Plan } from "../plan/types.js";',
      'import { type Change, PHASES, type Phase } from "../plan/types.js";',
      'import {\n  serializePlan,\n  type Plan as P,\n} from "../plan/file.js";',
      'export { planSummary } from "../plan/summary.js";',
      'import * as plan from "../plan/planner.js";',
    ].join("\n");
    expect(planValueImports("x.ts", text)).toEqual([
      "x.ts: deactivates from ../plan/changes.js",
      "x.ts: serializePlan from ../plan/file.js",
      "x.ts: planSummary from ../plan/summary.js",
      "x.ts: * as plan from ../plan/planner.js",
    ]);
  });

  // Renderers are functions from data to text: serializing a plan (plan/file.ts) and
  // deciding what deactivates (plan/changes.ts) are the CLI's, which passes the result in.
  it("imports only types from src/plan (the phase names aside)", () => {
    const files = readdirSync(RENDER, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(5);
    const found = files.flatMap((f) => planValueImports(f, readFileSync(join(RENDER, f), "utf8")));
    expect(found).toEqual([]);
  });
});
