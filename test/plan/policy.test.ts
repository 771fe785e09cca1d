import { describe, expect, it } from "vitest";
import type { CampaignFields, PolicyRule, PolicyRules } from "../../src/model/desired.js";
import { Money } from "../../src/model/money.js";
import {
  desiredCampaign,
  desiredIo,
  desiredState,
  liveCampaign,
  liveIo,
  liveState,
  source,
} from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { plan } from "../helpers/plans.js";

const rule = (action: "deny" | "warn", extra: Partial<PolicyRule> = {}): PolicyRule => ({
  action,
  source: source(3, "policy.rule"),
  ...extra,
});

function withPolicy(fields: CampaignFields, policy: PolicyRules, own?: PolicyRules) {
  const order = desiredIo("1001", { campaigns: [desiredCampaign("Airports", { fields })] });
  if (own) order.policy = own;
  return { ...desiredState([order]), policy };
}

const codes = (p: { findings: { code: string; severity: string }[] }) =>
  p.findings.map((f) => `${f.severity} ${f.code}`);

describe("guardrail policies", () => {
  const live = liveState({ campaigns: [liveCampaign()] });
  const flying = liveState({ campaigns: [liveCampaign({ in_flight: true })] });

  it("max_cpm: deny is an error that leaves nothing to apply; warn is a warning", () => {
    const deny = plan(
      withPolicy({ cpm: usd("13") }, { max_cpm: rule("deny", { limits: [usd("12.5")] }) }),
      live,
    );
    expect(codes(deny)).toEqual(["error DOOH901"]);
    expect(deny.requests).toEqual([]);
    expect(deny.findings[0]!.message).toBe(
      'sets the cpm of campaign 5001 "Airports" to 13.00 USD, above the highest cpm 12.50 USD: policy doohctl.yaml:3 (policy.rule) denies it; change the config, or pass --allow DOOH901 to apply anyway',
    );
    const warn = plan(
      withPolicy({ cpm: usd("13") }, { max_cpm: rule("warn", { limits: [usd("12.5")] }) }),
      live,
    );
    expect(codes(warn)).toEqual(["warning DOOH901"]);
    expect(warn.requests.length).toBeGreaterThan(0);
    // At the limit: no finding.
    const at = plan(
      withPolicy({ cpm: usd("12.5") }, { max_cpm: rule("deny", { limits: [usd("12.5")] }) }),
      live,
    );
    expect(codes(at)).toEqual([]);
    // A rule that names only EUR binds a USD cpm too: switching currency does not escape it.
    const eur = plan(
      withPolicy({ cpm: usd("13") }, { max_cpm: rule("deny", { limits: [Money.parse("1 EUR")] }) }),
      live,
    );
    expect(codes(eur)).toEqual(["error DOOH901"]);
    expect(eur.findings[0]!.message).toContain(
      "to 13.00 USD, above the highest cpm in USD: the rule limits only EUR, so nothing in USD is within it (add a USD limit to allow it)",
    );
  });

  it("--allow turns a deny into a warning that says so, and the plan records it", () => {
    const d = withPolicy({ cpm: usd("13") }, { max_cpm: rule("deny", { limits: [usd("12.5")] }) });
    const p = plan(d, live, { allowed: ["DOOH901"] });
    expect(codes(p)).toEqual(["warning DOOH901"]);
    expect(p.findings[0]!.message).toContain("denies it, allowed by --allow DOOH901");
    expect(p.allowed).toEqual(["DOOH901"]);
    expect(p.requests.length).toBeGreaterThan(0);
    // Another code allowed does not lift this denial.
    expect(codes(plan(d, live, { allowed: ["DOOH905"] }))).toEqual(["error DOOH901"]);
    expect(plan(d, live).allowed).toBeUndefined();
  });

  it("budget and cpm increase rules replace DOOH401, with the threshold flags as their default limits", () => {
    const fields = { cpm: usd("15"), budget_impressions: 140_000 };
    const both: PolicyRules = { budget_increase_percent: rule("deny"), cpm_increase_percent: rule("warn") };
    // Defaults 50% (budget +40%: within) and 20% (cpm +25%: above).
    expect(codes(plan(withPolicy(fields, both), live))).toEqual(["warning DOOH903"]);
    // The flags lower the defaults: budget +40% above 30% is denied.
    const flagged = plan(withPolicy(fields, both), live, {
      thresholds: { budget_increase_percent: 30, cpm_increase_percent: 30 },
    });
    expect(codes(flagged)).toEqual(["error DOOH902"]);
    // A limit in the rule wins over the flag.
    const own = plan(
      withPolicy(fields, {
        budget_increase_percent: rule("warn", { limit: 10 }),
        cpm_increase_percent: rule("deny", { limit: 30 }),
      }),
      live,
    );
    expect(codes(own)).toEqual(["warning DOOH902"]);
    // Only the budget rule declared: cpm still gets DOOH401.
    expect(
      codes(plan(withPolicy(fields, { budget_increase_percent: rule("deny", { limit: 10 }) }), live)),
    ).toEqual(["error DOOH902", "warning DOOH401"]);
  });

  it("max_added_spend compares the plan's added maximum spend per currency", () => {
    // 100,000 x 12 USD -> 200,000 x 12 USD: adds 1,200 USD of maximum spend.
    const fields = { budget_impressions: 200_000 };
    const base: PolicyRules = { budget_increase_percent: rule("warn", { limit: 1000 }) };
    const deny = plan(
      withPolicy(fields, { ...base, max_added_spend: rule("deny", { limits: [usd("1000")] }) }),
      live,
    );
    expect(codes(deny)).toEqual(["error DOOH904"]);
    expect(deny.findings[0]!.message).toContain(
      'this plan adds 1,200.00 USD of maximum spend for advertiser 1 "Northwind" (money table, docs/plan.md), above the largest added spend 1,000.00 USD per apply and advertiser',
    );
    const within = plan(
      withPolicy(fields, { ...base, max_added_spend: rule("deny", { limits: [usd("1200")] }) }),
      live,
    );
    expect(codes(within)).toEqual([]);
    const warn = plan(
      withPolicy(fields, { ...base, max_added_spend: rule("warn", { limits: [usd("500")] }) }),
      live,
    );
    expect(codes(warn)).toEqual(["warning DOOH904"]);
  });

  it("no_deactivation_in_flight: only a campaign active and in flight (the DSP's in_flight, G2)", () => {
    const policy = { no_deactivation_in_flight: rule("deny") };
    const inFlight = plan(withPolicy({ active: false }, policy), flying);
    expect(codes(inFlight)).toEqual(["error DOOH905", "warning DOOH101"]);
    const before = plan(withPolicy({ active: false }, policy), live);
    expect(codes(before)).toEqual(["warning DOOH101"]);
    const warn = plan(withPolicy({ active: false }, { no_deactivation_in_flight: rule("warn") }), flying);
    expect(codes(warn)).toEqual(["warning DOOH905", "warning DOOH101"]);
  });

  it("an insertion order's own rule replaces the top-level one of the same name", () => {
    const top: PolicyRules = {
      max_cpm: rule("deny", { limits: [usd("12.5")] }),
      no_deactivation_in_flight: rule("deny"),
    };
    const relaxed = plan(
      withPolicy({ cpm: usd("13") }, top, { max_cpm: rule("warn", { limits: [usd("12.5")] }) }),
      live,
    );
    expect(codes(relaxed)).toEqual(["warning DOOH901"]);
    const raised = plan(
      withPolicy({ cpm: usd("13") }, top, { max_cpm: rule("deny", { limits: [usd("20")] }) }),
      live,
    );
    expect(codes(raised)).toEqual([]);
    // Rules the insertion order does not name stay in force.
    const other = plan(
      withPolicy({ active: false }, top, { max_cpm: rule("warn", { limits: [usd("20")] }) }),
      flying,
    );
    expect(codes(other)).toEqual(["error DOOH905", "warning DOOH101"]);
  });

  it("applies to a campaign to create (max_cpm) and to unmanaged_campaigns: deactivate (no_deactivation_in_flight)", () => {
    const created = {
      ...desiredState([
        desiredIo("1001", {
          campaigns: [
            desiredCampaign("Stations", {
              fields: {
                start_time: "2026-12-15T00:00:00Z",
                end_time: "2027-02-01T00:00:00Z",
                budget_impressions: 1000,
                cpm: usd("30"),
              },
            }),
          ],
        }),
      ]),
      policy: { max_cpm: rule("deny", { limits: [usd("25")] }) },
    };
    const p = plan(created, liveState());
    expect(codes(p)).toEqual(["error DOOH901"]);
    expect(p.findings[0]!.message).toContain(
      'sets the cpm of new campaign "Stations" of insertion order 1001 to 30.00 USD, above the highest cpm 25.00 USD',
    );

    const unmanaged = {
      ...desiredState([desiredIo("1001", { unmanaged: "deactivate" })]),
      policy: { no_deactivation_in_flight: rule("deny") },
    };
    const deactivated = plan(unmanaged, flying);
    expect(codes(deactivated)).toEqual(["error DOOH905", "warning DOOH101"]);
    expect(deactivated.requests).toEqual([]);
    // Already inactive: nothing to guard.
    const inactive = liveState({ campaigns: [liveCampaign({ active: false, in_flight: true })] });
    expect(codes(plan(unmanaged, inactive))).toEqual([]);
  });
});

describe("max_added_spend per advertiser and currency", () => {
  it("never nets one advertiser's raise against another's cut", () => {
    // Advertiser 1: 5001 100,000 x 12 / 1000 = 1,200 -> 600,000 x 12 / 1000 = 7,200: +6,000.
    // Advertiser 2: 5002 500,000 x 12 / 1000 = 6,000 -> 125,000 x 12 / 1000 = 1,500: -4,500.
    // Net +1,500 would pass a 5,000 limit; per advertiser, +6,000 does not.
    const live = liveState({
      insertionOrders: [
        liveIo({ budget_impressions: null, budget_money: null }),
        liveIo({ id: "1002", advertiser_id: "2", budget_impressions: null, budget_money: null }),
      ],
      advertisers: [
        { id: "1", name: "Northwind" },
        { id: "2", name: "Contoso" },
      ],
      campaigns: [
        liveCampaign({ progress: { impressions_delivered: 0, spend: usd("0") } }),
        liveCampaign({
          id: "5002",
          insertion_order_id: "1002",
          name: "Rail",
          budget_impressions: 500_000,
          progress: { impressions_delivered: 0, spend: usd("0") },
        }),
      ],
    });
    const d = {
      ...desiredState([
        desiredIo("1001", {
          campaigns: [desiredCampaign("Airports", { fields: { budget_impressions: 600_000 } })],
        }),
        desiredIo("1002", {
          campaigns: [desiredCampaign("Rail", { fields: { budget_impressions: 125_000 } })],
        }),
      ]),
      policy: {
        max_added_spend: rule("deny", { limits: [usd("5000")] }),
        budget_increase_percent: rule("warn", { limit: 10_000 }),
      },
    };
    const p = plan(d, live);
    expect(codes(p)).toEqual(["error DOOH904"]);
    expect(p.findings[0]!.message).toContain(
      'this plan adds 6,000.00 USD of maximum spend for advertiser 1 "Northwind" (money table, docs/plan.md), above the largest added spend 5,000.00 USD per apply and advertiser',
    );
  });
});
