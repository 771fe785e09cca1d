import { describe, expect, it } from "vitest";
import { ConfigError, formatIssue } from "../../src/config/issues.js";
import { loadConfig } from "../../src/config/load.js";
import { Money } from "../../src/model/money.js";

function memoryFiles(files: Record<string, string>) {
  return {
    cwd: "/cfg",
    readFile: async (path: string) => {
      const content = files[path.replace(/^\/cfg\//, "")];
      if (content === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
      return new TextEncoder().encode(content);
    },
    listDirectory: async (path: string) =>
      path === "/cfg/conf.d"
        ? Object.keys(files)
            .filter((name) => name.startsWith("conf.d/"))
            .map((name) => name.slice("conf.d/".length))
        : undefined,
  };
}

async function problems(files: Record<string, string>, paths: string[] = []): Promise<string[]> {
  try {
    await loadConfig(paths, memoryFiles(files));
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => formatIssue(i));
    throw error;
  }
  throw new Error("expected the config to be invalid");
}

const IO = `insertion_orders:
  - id: "1001"
    campaigns:
      - name: Airports
`;

describe("policy in the config", () => {
  it("normalizes the top-level policy and an insertion order's override, action default deny", async () => {
    const state = await loadConfig(
      [],
      memoryFiles({
        "doohctl.yaml": `version: 1
policy:
  max_cpm: { limits: ["25 USD", { currency_code: EUR, units: 22 }] }
  budget_increase_percent: { limit: 30, action: warn }
  cpm_increase_percent: { action: deny }
  max_added_spend: { limits: ["10000.50 USD"], action: warn }
  no_deactivation_in_flight: {}
insertion_orders:
  - id: "1001"
    policy:
      max_cpm: { limits: ["20 USD", "22 EUR"] }
`,
      }),
    );
    expect(state.policy?.max_cpm).toEqual({
      action: "deny",
      limits: [Money.parse("25 USD"), Money.parse("22 EUR")],
      source: { file: "doohctl.yaml", line: 3, column: 12, path: "policy.max_cpm" },
    });
    expect(state.policy?.budget_increase_percent).toMatchObject({ action: "warn", limit: 30 });
    expect(state.policy?.cpm_increase_percent).toMatchObject({ action: "deny" });
    expect(state.policy?.cpm_increase_percent?.limit).toBeUndefined();
    expect(state.policy?.max_added_spend).toMatchObject({
      action: "warn",
      limits: [Money.parse("10000.5 USD")],
    });
    expect(state.policy?.no_deactivation_in_flight).toMatchObject({ action: "deny" });
    expect(state.insertionOrders[0]!.policy?.max_cpm).toMatchObject({
      action: "deny",
      limits: [Money.parse("20 USD"), Money.parse("22 EUR")],
      source: { path: "insertion_orders[0].policy.max_cpm", line: 11 },
    });
  });

  it("counts a currency added by an insertion order's rule as loosening, one dropped as tightening", async () => {
    // A rule with limits allows nothing in a currency it does not list (docs/plan.md,
    // "Currencies"): top level 25 USD allows no EUR cpm, so 1001's 30 EUR loosens it; 1001
    // dropping USD (limit 0 there) tightens it and is no error.
    const found = await problems({
      "doohctl.yaml": `version: 1
policy:
  max_cpm: { limits: ["25 USD"] }
insertion_orders:
  - id: "1001"
    policy:
      max_cpm: { limits: ["30 EUR"] }
`,
    });
    expect(found).toHaveLength(1);
    expect(found[0]).toContain("loosens the top-level rule, max_cpm: EUR: none allowed -> 30.00 EUR");
  });

  it("refuses an insertion order's policy that loosens a top-level rule, naming each loosening", async () => {
    const found = await problems({
      "doohctl.yaml": `version: 1
policy:
  max_cpm: { limits: ["25 USD", "22 EUR"] }
  cpm_increase_percent: { limit: 20 }
  no_deactivation_in_flight: {}
insertion_orders:
  - id: "1001"
    policy:
      max_cpm: { limits: ["40 USD"], action: warn }
      cpm_increase_percent: { limit: 10 }
      no_deactivation_in_flight: { action: warn }
`,
    });
    const hint =
      "\n  hint: keep the top-level action and a limit at or below it here, or change the top-level policy (reviewed by its owners)";
    expect(found).toEqual([
      `doohctl.yaml:9:16: insertion_orders[0].policy.max_cpm: insertion order 1001's policy loosens the top-level rule, max_cpm: deny -> warn: an insertion order's policy may only tighten the top-level rules${hint}`,
      `doohctl.yaml:9:16: insertion_orders[0].policy.max_cpm: insertion order 1001's policy loosens the top-level rule, max_cpm: 25.00 USD -> 40.00 USD: an insertion order's policy may only tighten the top-level rules${hint}`,
      `doohctl.yaml:11:34: insertion_orders[0].policy.no_deactivation_in_flight: insertion order 1001's policy loosens the top-level rule, no_deactivation_in_flight: deny -> warn: an insertion order's policy may only tighten the top-level rules${hint}`,
    ]);
  });

  it("refuses bad policy values with file:line and what to write", async () => {
    const found = await problems({
      "doohctl.yaml": `version: 1
policy:
  max_cpm: { limits: ["25 USD", "30 USD"] }
  budget_increase_percent: { limit: -5 }
  cpm_increase_percent: { action: block }
  max_added_spend: { limits: [] }
  no_deactivation_in_flight: { limit: 3 }
  max_cmp: { limits: ["1 USD"] }
${IO}    policy:
      max_added_spend: { limits: ["1 USD"] }
`,
    });
    expect(found.join("\n")).toMatchInlineSnapshot(`
      "doohctl.yaml:3:33: policy.max_cpm.limits[1]: max_cpm has a second limit in USD (the first is limits[0]): keep one per currency
      doohctl.yaml:4:37: policy.budget_increase_percent.limit: must be at least 0, found -5
      doohctl.yaml:5:35: policy.cpm_increase_percent.action: "block" is not one of: deny, warn
      doohctl.yaml:6:30: policy.max_added_spend.limits: list is empty: give at least 1 item
      doohctl.yaml:7:32: policy.no_deactivation_in_flight.limit: unknown key "limit"
        hint: allowed keys here: action
      doohctl.yaml:8:3: policy.max_cmp: unknown key "max_cmp"
        hint: did you mean "max_cpm"?
      doohctl.yaml:14:7: insertion_orders[0].policy.max_added_spend: "max_added_spend" is not allowed here
        hint: max_added_spend limits what one apply adds to the maximum spend, all advertisers together, so it is a top-level rule only: move it to the top-level policy"
    `);
  });

  it("refuses a top-level policy declared in two files", async () => {
    const found = await problems(
      {
        "conf.d/a.yaml": `version: 1\npolicy:\n  no_deactivation_in_flight: {}\n`,
        "conf.d/b.yaml": `version: 1\npolicy:\n  max_cpm: { limits: ["9 USD"] }\n`,
      },
      ["conf.d"],
    );
    expect(found).toEqual([
      expect.stringMatching(
        /^conf\.d\/b\.yaml:3:3: policy: policy is declared twice: also at conf\.d\/a\.yaml:3:3\n {2}hint: declare the top-level policy in one file only/,
      ),
    ]);
  });
});
