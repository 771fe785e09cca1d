import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  ALLOWED_CODES,
  FINDING_CATALOGUE,
  type FindingCode,
  finding,
  POLICY_CODES,
} from "../../src/plan/finding-catalogue.js";
import { PLAN_ANALYZERS } from "../../src/plan/findings/analyze.js";
import { BUDGET_ANALYZERS } from "../../src/plan/findings/delivery.js";
import { POLICY_ANALYZERS } from "../../src/plan/findings/policy.js";

const CODES = Object.keys(FINDING_CATALOGUE) as FindingCode[];

/** docs/plan.md's table of codes: code -> the severity column as written. */
function documentedSeverities(): Map<string, string> {
  const doc = readFileSync(new URL("../../docs/plan.md", import.meta.url), "utf8");
  const rows = [...doc.matchAll(/^\| (DOOH\d{3}) \| ([^|]+) \|/gm)];
  return new Map(rows.map((row) => [row[1] ?? "", (row[2] ?? "").trim()]));
}

/** docs/plan.md's table of codes: code -> the module of its "emitted by" column. */
function documentedModules(): Map<string, string> {
  const doc = readFileSync(new URL("../../docs/plan.md", import.meta.url), "utf8");
  const rows = [...doc.matchAll(/^\| (DOOH\d{3}) \| [^|]+ \| `([^`|]+)` \|/gm)];
  return new Map(rows.map((row) => [row[1] ?? "", row[2] ?? ""]));
}

describe("the findings catalogue", () => {
  it("gives each finding the severity its code is catalogued with", () => {
    for (const code of CODES) {
      expect(finding(code, "message").severity).toBe(FINDING_CATALOGUE[code].severity);
    }
  });

  it("is what docs/plan.md documents: every code, with its severity", () => {
    const documented = documentedSeverities();
    expect([...documented.keys()]).toEqual(CODES);
    for (const code of CODES) {
      // A policy code is documented as "error (deny) or warning (warn)": deny is its catalogued severity.
      expect(documented.get(code)?.split(" ")[0]).toBe(FINDING_CATALOGUE[code].severity);
    }
  });

  it("is what docs/plan.md documents: the module that emits each code", () => {
    const documented = documentedModules();
    expect([...documented.keys()]).toEqual(CODES);
    for (const code of CODES) expect(documented.get(code)).toBe(FINDING_CATALOGUE[code].module);
  });

  it("names each analyzer once, and each code an analyzer emits belongs to one analyzer only", () => {
    const analyzers = [...BUDGET_ANALYZERS, ...POLICY_ANALYZERS, ...PLAN_ANALYZERS];
    const names = analyzers.map((a) => a.name);
    expect(new Set(names).size).toBe(names.length);
    const codes = analyzers.flatMap((a) => a.codes);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(CODES).toContain(code);
  });

  it("accepts for --allow the policy codes, which the policy analyzers emit, then DOOH804", () => {
    expect(POLICY_CODES).toEqual(["DOOH901", "DOOH902", "DOOH903", "DOOH904", "DOOH905", "DOOH906"]);
    const emitted = POLICY_ANALYZERS.flatMap((a) => a.codes).filter((code) => code.startsWith("DOOH9"));
    expect(emitted.sort()).toEqual(POLICY_CODES);
    expect(ALLOWED_CODES).toEqual([...POLICY_CODES, "DOOH804"]);
  });
});
