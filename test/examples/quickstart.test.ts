/**
 * The quick start against the example seed, through `run()` and the real emulator: the plan
 * holds every kind of change the demo tells about, apply carries it out and converges.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import type { Plan } from "../../src/plan/types.js";
import { type ExampleAccount, startExample } from "../helpers/example-seed.js";
import { DEMO_USER } from "../helpers/users.js";
import { dspWrites } from "../helpers/world.js";

let example: ExampleAccount;
let emulator: RunningEmulator;

beforeAll(async () => {
  example = await startExample("doohctl-quickstart-", {
    "doohctl.yaml": { copy: "examples/quickstart/doohctl.yaml" },
    // The emulator runs without limits; the client need not pace itself either.
    "connection.yaml": {
      text: "version: 1\nconnection:\n  rate_limits: { get: 1000/60s, write: 1000/60s, session: 1000/60s }\n",
    },
  });
  emulator = example.emulator;
});
afterAll(async () => {
  await example.close();
});

const cli = () => example.cli();

describe("examples/quickstart against examples/emulator-seed.json", () => {
  it("plans every kind of change the demo shows, and the pause for the targeting removal", async () => {
    const io = cli();
    expect(await run(["plan", ".", "--format", "json", "--detailed-exitcode"], io), io.err()).toBe(2);
    const plan = JSON.parse(io.out()) as Plan;
    const kinds = new Set(plan.changes.map((c) => c.kind));
    expect([...kinds].sort()).toEqual([
      "associate_creative",
      "create_campaign",
      "dissociate_creative",
      "replace_targetings",
      "update_campaign",
      "update_insertion_order",
    ]);
    const fields = plan.changes.flatMap((c) =>
      "fields" in c ? c.fields.map((f) => `${c.address} ${f.field}`) : [],
    );
    expect(fields).toEqual(
      expect.arrayContaining([
        "insertion_order.1002 end_time",
        "campaign.1001/Holiday airports cpm",
        "campaign.1002/Spring downtown budget_impressions",
      ]),
    );
    const removal = plan.changes.find((c) => c.kind === "replace_targetings" && c.pause);
    expect(removal?.address).toBe("campaign.1001/Holiday malls");
    expect(plan.findings.map((f) => f.code)).toContain("DOOH201");
    expect(plan.findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(JSON.stringify(plan)).not.toContain(DEMO_USER.password);
  });

  it("applies cleanly, activates the new campaign last, and a new plan shows no changes", async () => {
    const apply = cli();
    expect(await run(["apply", ".", "--auto-approve"], apply), apply.err()).toBe(0);
    const writes = dspWrites(emulator);
    const created = emulator.state().campaigns.find((c) => c.name === "January clearance");
    expect(created?.active).toBe(true);
    // The last write is the activation batch (phase 6), after targetings and creatives.
    expect(writes.at(-1)?.method).toBe("PATCH");
    expect(JSON.stringify(writes.at(-1)?.body)).toContain(`"id":"${created?.id}"`);

    const again = cli();
    expect(await run(["plan", ".", "--detailed-exitcode"], again), again.err()).toBe(0);
    expect(again.out()).toMatch(/no changes/i);
    expect(apply.out() + apply.err() + again.out() + again.err()).not.toContain(DEMO_USER.password);
  });
});
