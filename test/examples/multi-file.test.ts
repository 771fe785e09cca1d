/**
 * examples/multi-file against examples/emulator-seed.json, as a reader of the README tries
 * it: the split config plans without an error and applies to convergence.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { Plan } from "../../src/plan/types.js";
import { type ExampleAccount, startExample } from "../helpers/example-seed.js";

let example: ExampleAccount;

beforeAll(async () => {
  example = await startExample("doohctl-multi-file-", {
    "connection.yaml": { copy: "examples/multi-file/connection.yaml" },
    "creatives.yaml": { copy: "examples/multi-file/creatives.yaml" },
    "io-1001.yaml": { copy: "examples/multi-file/io-1001.yaml" },
    "io-1002.yaml": { copy: "examples/multi-file/io-1002.yaml" },
  });
});
afterAll(async () => {
  await example.close();
});

describe("examples/multi-file against examples/emulator-seed.json", () => {
  it("plans without an error, applies, and converges", async () => {
    const plan = example.cli();
    expect(await run(["plan", ".", "--format", "json"], plan), plan.err()).toBe(0);
    const parsed = JSON.parse(plan.out()) as Plan;
    expect(parsed.findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(parsed.requests.length).toBeGreaterThan(0);

    const apply = example.cli();
    expect(await run(["apply", ".", "--auto-approve"], apply), apply.err()).toBe(0);
    const again = example.cli();
    expect(await run(["plan", ".", "--detailed-exitcode"], again), again.err()).toBe(0);
  });
});
