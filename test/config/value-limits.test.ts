/**
 * Values the schema's shapes let through but the wire cannot carry exactly: YAML numbers
 * beyond 2^53 and money whose units Money.fromWire refuses. Each must come back as a located
 * ConfigError issue that says what to write, never as an exception out of loadConfig.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigError, type ConfigIssue } from "../../src/config/issues.js";
import { loadConfig } from "../../src/config/load.js";

function options(text: string) {
  return {
    cwd: "/cfg",
    readFile: async () => new TextEncoder().encode(text),
    listDirectory: async () => undefined,
  };
}

async function issuesOf(text: string): Promise<ConfigIssue[]> {
  try {
    await loadConfig(["doohctl.yaml"], options(text));
  } catch (error) {
    if (error instanceof ConfigError) return [...error.issues];
    throw error;
  }
  throw new Error("expected the config to be invalid");
}

function campaign(fields: string): string {
  return `version: 1\ninsertion_orders:\n  - id: '1'\n    campaigns:\n      - name: A\n        ${fields}\n`;
}

describe("money units the wire form refuses", () => {
  it("reports a YAML number beyond 2^53 in units with the exact digits to write in quotes", async () => {
    const issues = await issuesOf(campaign("cpm: {currency_code: USD, units: 1e21}"));
    expect(issues).toEqual([
      expect.objectContaining({
        file: "doohctl.yaml",
        line: 6,
        column: 14,
        path: "insertion_orders[0].campaigns[0].cpm",
        code: "MONEY_INVALID",
        message: expect.stringContaining("units must be an integer string") as string,
      }),
    ]);
    expect(issues[0]?.message).toContain('write "1000000000000000000000"');
  });

  it("reports an integer literal too long for a YAML number in units, telling to quote it", async () => {
    const issues = await issuesOf(campaign("cpm: {currency_code: USD, units: 12345678901234567890123}"));
    expect(issues.map((i) => [i.code, i.message])).toEqual([
      ["MONEY_INVALID", 'units must be an integer string: write "12345678901234567890123" (in quotes)'],
    ]);
  });

  it("reports units with leading zeros, which the schema's digits pattern accepts, at the units value", async () => {
    const issues = await issuesOf(campaign('cpm: {currency_code: USD, units: "007"}'));
    expect(issues).toEqual([
      expect.objectContaining({
        line: 6,
        column: 42,
        path: "insertion_orders[0].campaigns[0].cpm.units",
        code: "MONEY_INVALID",
        message: 'units must be an integer string without leading zeros: write "7"',
      }),
    ]);
  });

  it("never throws anything but a ConfigError, whatever number or digit string units hold", async () => {
    const units = fc.oneof(
      fc.double({ noNaN: true }).map((n) => String(n)),
      fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map((n) => String(n)),
      fc.stringMatching(/^[0-9]{1,25}$/).map((s) => `"${s}"`),
      fc.constantFrom("1e21", "1e300", ".inf", "-0", "1.5e3", "0x10", "0o17"),
    );
    await fc.assert(
      fc.asyncProperty(units, fc.constantFrom("cpm", "budget_money"), async (written, key) => {
        const text =
          key === "cpm"
            ? campaign(`cpm: {currency_code: USD, units: ${written}}`)
            : `version: 1\ninsertion_orders:\n  - id: '1'\n    budget_money: {currency_code: USD, units: ${written}}\n`;
        try {
          await loadConfig(["doohctl.yaml"], options(text));
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          for (const issue of (error as ConfigError).issues) expect(issue.line).toBeGreaterThan(0);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("integers beyond what JSON carries exactly", () => {
  it.each([
    [
      "a campaign's budget_impressions",
      campaign("budget_impressions: 1e300"),
      "insertion_orders[0].campaigns[0].budget_impressions",
      "1e+300",
    ],
    [
      "an insertion order's budget_impressions",
      "version: 1\ninsertion_orders:\n  - id: '1'\n    budget_impressions: 9007199254740992.0\n",
      "insertion_orders[0].budget_impressions",
      "9007199254740992",
    ],
  ])("refuses %s past 9007199254740991, saying why", async (_what, text, path, shown) => {
    const issues = await issuesOf(text);
    expect(issues.map((i) => [i.path, i.code, i.message])).toEqual([
      [
        path,
        "NUMBER_TOO_LARGE",
        `${shown} is too large: whole numbers go up to 9007199254740991, beyond which JSON loses digits`,
      ],
    ]);
  });

  it("accepts budget_impressions of exactly 9007199254740991", async () => {
    const state = await loadConfig(
      ["doohctl.yaml"],
      options(campaign("budget_impressions: 9007199254740991")),
    );
    expect(state.insertionOrders[0]?.campaigns[0]?.fields.budget_impressions).toBe(9007199254740991);
  });

  it("refuses a fractional budget_impressions", async () => {
    const issues = await issuesOf(campaign("budget_impressions: 1.5"));
    expect(issues.map((i) => [i.code, i.message])).toEqual([
      ["WRONG_TYPE", "expected a whole number, found the number 1.5"],
    ]);
  });

  it("refuses a numeric id past 2^53, which would be sent as 1e+300, and quotes it as written", async () => {
    const issues = await issuesOf("version: 1\ninsertion_orders:\n  - id: 1e300\n");
    expect(issues).toEqual([
      expect.objectContaining({
        path: "insertion_orders[0].id",
        code: "ID_TOO_LARGE",
        hint: 'write "1e300"',
      }),
    ]);
    expect(issues[0]?.message).toBe(
      "1e300 is beyond 9007199254740991, where a YAML number loses digits: quote this id",
    );
  });

  it("refuses a negative numeric id", async () => {
    const issues = await issuesOf("version: 1\ninsertion_orders:\n  - id: -5\n");
    expect(issues.map((i) => [i.path, i.message])).toEqual([
      ["insertion_orders[0].id", "-5 is not an id: ids are whole numbers from 0, or strings"],
    ]);
  });
});
