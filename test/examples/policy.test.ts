/**
 * examples/policy against the example seed, through `run()` and the real emulator: the plan
 * shows exactly what the example's comment promises, and the deny rule it describes denies.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import type { Plan } from "../../src/plan/types.js";
import { type ExampleAccount, ROOT, startExample } from "../helpers/example-seed.js";

const EXAMPLE = join(ROOT, "examples/policy/doohctl.yaml");

let example: ExampleAccount;
let emulator: RunningEmulator;
let dir: string;

beforeAll(async () => {
  example = await startExample("doohctl-policy-example-", {
    "doohctl.yaml": { copy: "examples/policy/doohctl.yaml" },
    "policy.yaml": { copy: "examples/policy/policy.yaml" },
  });
  ({ emulator, dir } = example);
});
afterAll(async () => {
  await example.close();
});

const cli = () => example.cli();

describe("examples/policy against examples/emulator-seed.json", () => {
  it("warns DOOH902 for the budget increase and denies nothing", async () => {
    const io = cli();
    expect(await run(["plan", ".", "--format", "json", "--detailed-exitcode"], io), io.err()).toBe(2);
    const plan = JSON.parse(io.out()) as Plan;
    expect(plan.findings.filter((f) => f.severity === "error")).toEqual([]);
    const policy = plan.findings.filter((f) => f.code.startsWith("DOOH9"));
    expect(policy.map((f) => [f.code, f.severity, f.address])).toEqual([
      ["DOOH902", "warning", "campaign.1001/Holiday malls"],
    ]);
    expect(policy[0]?.message).toContain("300,000 -> 400,000 (+33%, above the largest increase of 25%)");
    expect(plan.requests.length).toBeGreaterThan(0);
  });

  it("denies the cpm the comment names (DOOH901), and sends nothing", async () => {
    const raised = readFileSync(EXAMPLE, "utf8").replace("cpm: 12.00 USD", "cpm: 30 USD");
    expect(raised).toContain("cpm: 30 USD");
    writeFileSync(join(dir, "doohctl.yaml"), raised);
    try {
      const io = cli();
      expect(await run(["apply", ".", "--auto-approve"], io)).toBe(1);
      expect(io.err()).toContain("DOOH901");
      expect(io.err()).toContain("nothing was sent");
      const airports = emulator.state().campaigns.find((c) => c.id === "5001");
      expect(airports?.cpm).toMatchObject({ currency_code: "USD", units: "12" });
    } finally {
      writeFileSync(join(dir, "doohctl.yaml"), readFileSync(EXAMPLE, "utf8"));
    }
  });

  it("names every denial of that cpm, and the --allow command the comment gives applies it", async () => {
    const comment = readFileSync(EXAMPLE, "utf8");
    const allow = /`doohctl apply (--allow DOOH\d{3}(?: --allow DOOH\d{3})*)`/.exec(
      comment.replaceAll("\n# ", " "),
    );
    expect(allow, "the comment gives the --allow command").not.toBeNull();
    const raised = comment.replace("cpm: 12.00 USD", "cpm: 30 USD");
    writeFileSync(join(dir, "doohctl.yaml"), raised);
    try {
      const planned = cli();
      expect(await run(["plan", ".", "--format", "json"], planned)).toBe(1);
      const denied = (JSON.parse(planned.out()) as { errors: { code: string }[] }).errors.map((e) => e.code);
      const allowed = allow![1]!.split(" ").filter((word) => word.startsWith("DOOH"));
      expect([...new Set(denied)].sort()).toEqual(allowed);
      for (const code of allowed) expect(comment).toContain(code);

      const io = cli();
      expect(await run(["apply", ".", "--auto-approve", ...allow![1]!.split(" ")], io), io.err()).toBe(0);
      const airports = emulator.state().campaigns.find((c) => c.id === "5001");
      expect(airports?.cpm).toMatchObject({ currency_code: "USD", units: "30" });
    } finally {
      writeFileSync(join(dir, "doohctl.yaml"), readFileSync(EXAMPLE, "utf8"));
    }
  });
});
