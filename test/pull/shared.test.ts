/**
 * Shared values (docs/pull.md, Shared values) and pauses nobody chose (docs/safety.md,
 * Recovery record), through `run()` against the emulator: pull never changes what another
 * object reads, and never pulls a pause an interrupted apply left.
 */
import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { RecoveryStore } from "../../src/apply/recovery.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { usdParts } from "../helpers/money.js";
import { USER } from "../helpers/users.js";
import { type LiveCampaign, seedOf, Workdir } from "./harness.js";

let emulator: RunningEmulator | undefined;
let work: Workdir | undefined;
afterEach(async () => {
  await emulator?.close();
  if (work) rmSync(work.dir, { recursive: true, force: true });
});

async function account(campaigns: LiveCampaign[], extra: Record<string, unknown> = {}): Promise<Workdir> {
  emulator = (await startCliAccount({ seed: seedOf(campaigns, {}, extra) })).emulator;
  work = new Workdir(emulator);
  return work;
}

const PRICED = (price: string) => `version: 1
x-prices:
  rate: &rate ${price} # the rate card
insertion_orders:
  - id: "1001"
    campaigns:
      - name: One
        cpm: *rate
      - name: Two
        cpm: *rate
`;

describe("a value read through an alias", () => {
  it("changes at the anchor when every object reading it drifted to the same value", async () => {
    const w = await account([
      { id: "1", name: "One", cpm: usdParts("11") },
      { id: "2", name: "Two", cpm: usdParts("11") },
    ]);
    w.write("c.yaml", PRICED("10.00 USD"));
    const result = await w.run(["pull", "c.yaml"]);
    expect(result.code, result.out + result.err).toBe(0);
    expect(w.read("c.yaml")).toBe(PRICED("11.00 USD"));
    expect(result.out).toMatch(/shared value/);
  });

  it("gives the one object that drifted a copy in place of its alias, and leaves the anchor", async () => {
    const w = await account([
      { id: "1", name: "One", cpm: usdParts("11", 500000000) },
      { id: "2", name: "Two", cpm: usdParts("10") },
    ]);
    w.write("c.yaml", PRICED("10.00 USD"));
    const result = await w.run(["pull", "c.yaml"]);
    expect(result.code, result.out + result.err).toBe(0);
    expect(w.read("c.yaml")).toBe(
      PRICED("10.00 USD").replace(
        "      - name: One\n        cpm: *rate",
        "      - name: One\n        cpm: 11.50 USD",
      ),
    );
    expect(result.out).toMatch(/One cpm .*own value \(the alias replaced by a copy\)/);
    expect((await w.run(["plan", "c.yaml", "--detailed-exitcode"])).code).toBe(0);
  });

  it("gives each object its own value when they drifted to different values", async () => {
    const w = await account([
      { id: "1", name: "One", cpm: usdParts("11") },
      { id: "2", name: "Two", cpm: usdParts("12") },
    ]);
    w.write("c.yaml", PRICED("10.00 USD"));
    expect((await w.run(["pull", "c.yaml"])).code).toBe(0);
    const text = w.read("c.yaml");
    expect(text).toContain("rate: &rate 10.00 USD # the rate card");
    expect(text).toContain(
      "      - name: One\n        cpm: 11.00 USD\n      - name: Two\n        cpm: 12.00 USD\n",
    );
  });

  it("does not pull an anchor's own object when another object reads it and did not drift", async () => {
    const w = await account([
      { id: "1", name: "One", budget_impressions: 2000 },
      { id: "2", name: "Two", budget_impressions: 1000 },
    ]);
    const text = `version: 1
insertion_orders:
  - id: "1001"
    campaigns:
      - name: One
        budget_impressions: &budget 1000
      - name: Two
        budget_impressions: *budget
`;
    w.write("c.yaml", text);
    const result = await w.run(["pull", "c.yaml"]);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/not pulled: campaign\.1001\/One budget_impressions \(c\.yaml:6\): .*anchor/);
    expect(w.read("c.yaml")).toBe(text);
  });
});

describe("a value read through a merge key", () => {
  const MERGED = `version: 1
x-defaults: &defaults
  budget_impressions: 1000
  cpm: {currency_code: USD, units: "10", nanos: 0}
insertion_orders:
  - id: "1001"
    campaigns:
      - { name: One, <<: *defaults }
      - name: Two
        <<: *defaults
`;

  it("adds the drifted key after `<<` in a flow map and in a block map, in the anchor's form", async () => {
    const w = await account([
      { id: "1", name: "One", cpm: usdParts("12", 500000000) },
      { id: "2", name: "Two", budget_impressions: 3000 },
    ]);
    w.write("c.yaml", MERGED);
    const result = await w.run(["pull", "c.yaml"]);
    expect(result.code, result.out + result.err).toBe(0);
    expect(w.read("c.yaml")).toBe(
      MERGED.replace(
        "{ name: One, <<: *defaults }",
        '{ name: One, <<: *defaults, cpm: {currency_code: USD, units: "12", nanos: 500000000} }',
      ).replace("        <<: *defaults\n", "        <<: *defaults\n        budget_impressions: 3000\n"),
    );
    expect((await w.run(["plan", "c.yaml", "--detailed-exitcode"])).code).toBe(0);
  });
});

describe("pauses", () => {
  const CONFIG = `version: 1
insertion_orders:
  - id: "1001"
    campaigns:
      - name: One
        active: true
        budget_impressions: 1000
      - name: Two
        active: true
`;

  it("never pulls a pause the recovery record names: reports it, says to apply, exits 1, pulls the rest", async () => {
    const w = await account([
      { id: "1", name: "One", active: false, budget_impressions: 1500 },
      { id: "2", name: "Two" },
    ]);
    w.write("c.yaml", CONFIG);
    new RecoveryStore(`${w.dir}/.state`, {
      origin: emulator?.origin ?? "",
      environment: "production",
      account_id: USER.account_id,
    })
      .begin("2026-11-23T10:00:00.000Z")
      .add([
        { campaign_id: "1", insertion_order_id: "1001", name: "One", paused_at: "2026-11-23T10:00:00.000Z" },
      ]);
    const result = await w.run(["pull", "c.yaml"]);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/not pulled: campaign\.1001\/One active .*recovery record.*run doohctl apply/);
    expect(w.read("c.yaml")).toBe(CONFIG.replace("budget_impressions: 1000", "budget_impressions: 1500"));
  });

  it("lists a live pause of a campaign in flight before the diff", async () => {
    const w = await account([
      { id: "1", name: "One", budget_impressions: 1000 },
      {
        id: "2",
        name: "Two",
        active: false,
        start_time: "2026-01-01T00:00:00Z",
        end_time: "2027-12-01T00:00:00Z",
      },
    ]);
    w.write("c.yaml", CONFIG);
    const result = await w.run(["pull", "c.yaml"]);
    expect(result.code, result.out + result.err).toBe(0);
    expect(result.out.split("\n")[0]).toMatch(
      /^paused live while in flight: campaign\.1001\/Two \(campaign 2\)/,
    );
    expect(result.out.indexOf("paused live")).toBeLessThan(result.out.indexOf("--- a/c.yaml"));
    expect(w.read("c.yaml")).toContain("      - name: Two\n        active: false\n");
  });
});

describe("lists", () => {
  it("replaces a flow targetings list in flow style, keeping the author's order of the sets that stay", async () => {
    const w = await account([{ id: "1", name: "One" }], {
      targetings: {
        "1": [
          { venue_type_targeting_option: { venue_type_ids: ["12"] } },
          { publisher_targeting_option: { publisher_ids: ["77"], exclude: true } },
        ],
      },
    });
    const text = `version: 1
insertion_orders:
  - id: "1001"
    campaigns:
      - name: One
        targetings: [{ venue_type_targeting_option: { venue_type_ids: ["12"] } }] # airports
x-notes:
  - a
  - b`;
    w.write("c.yaml", text);
    const result = await w.run(["pull", "c.yaml"]);
    expect(result.code, result.out + result.err).toBe(0);
    expect(w.read("c.yaml")).toBe(
      text.replace(
        '[{ venue_type_targeting_option: { venue_type_ids: ["12"] } }]',
        '[{ venue_type_targeting_option: { venue_type_ids: ["12"] } }, { publisher_targeting_option: { publisher_ids: ["77"], exclude: true } }]',
      ),
    );
    expect((await w.run(["plan", "c.yaml", "--detailed-exitcode"])).code).toBe(0);
  });

  it("replaces a block list at the end of a file without a final newline", async () => {
    const w = await account([{ id: "1", name: "One" }], {
      targetings: { "1": [{ venue_type_targeting_option: { venue_type_ids: ["20"] } }] },
    });
    const text = `version: 1
insertion_orders:
  - id: "1001"
    campaigns:
      - name: One
        targetings:
          - venue_type_targeting_option: { venue_type_ids: ["12"] }`;
    w.write("c.yaml", text);
    const result = await w.run(["pull", "c.yaml"]);
    expect(result.code, result.out + result.err).toBe(0);
    expect(w.read("c.yaml")).toBe(text.replace('["12"]', '["20"]'));
  });
});

describe("live campaigns the config does not list", () => {
  const CONFIG = `version: 1
insertion_orders:
  - id: "1001"
    unmanaged_campaigns: deactivate
    campaigns:
      - name: One
        budget_impressions: 1000
`;

  it("are not pulled without --new (exit 1), and appended with it (exit 0)", async () => {
    const w = await account([
      { id: "1", name: "One" },
      { id: "2", name: "Two" },
    ]);
    w.write("c.yaml", CONFIG);
    const without = await w.run(["pull", "c.yaml"]);
    expect(without.code).toBe(1);
    expect(without.out).toMatch(
      /not pulled: campaign\.1001\/Two: live campaign 2 is not in the config .*--new/,
    );
    expect(w.read("c.yaml")).toBe(CONFIG);
    const withNew = await w.run(["pull", "c.yaml", "--new"]);
    expect(withNew.code, withNew.out + withNew.err).toBe(0);
    expect(withNew.out).toContain("appended: campaign.1001/Two (campaign 2) to c.yaml");
    expect(w.read("c.yaml")).toMatch(/^ {6}- name: Two\n {8}id: "2"\n {8}active: true\n/m);
    expect((await w.run(["plan", "c.yaml", "--detailed-exitcode"])).code).toBe(0);
  });
});

describe("pull's check of its own edit", () => {
  it("writes nothing when replacing a list would drop an anchor another object reads", async () => {
    const w = await account(
      [
        { id: "1", name: "One" },
        { id: "2", name: "Two" },
      ],
      {
        targetings: {
          "1": [
            { venue_type_targeting_option: { venue_type_ids: ["12"] } },
            { deal_targeting_option: { deal_ids: ["D-1"] } },
          ],
          "2": [{ venue_type_targeting_option: { venue_type_ids: ["12"] } }],
        },
      },
    );
    const text = `version: 1
insertion_orders:
  - id: "1001"
    campaigns:
      - name: One
        targetings: [&v { venue_type_targeting_option: { venue_type_ids: ["12"] } }]
      - name: Two
        targetings: [*v]
`;
    w.write("c.yaml", text);
    const result = await w.run(["pull", "c.yaml"]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/the edit did not check out, nothing written/);
    expect(w.read("c.yaml")).toBe(text);
    const json = await w.run(["pull", "c.yaml", "--format", "json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out).errors[0].code).toBe("PULL_CHECK_FAILED");
  });
});
