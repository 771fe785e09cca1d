/**
 * Commitments: the campaigns of an insertion order can spend more than
 * its budget_money. DOOH803 in plan and validate; DOOH906 under commitments_within_budget.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { PolicyRule } from "../../src/model/desired.js";
import {
  desiredCampaign,
  desiredIo,
  desiredState,
  liveCampaign,
  liveIo,
  liveState,
  source,
} from "../helpers/builders.js";
import { bufferIO } from "../helpers/io.js";
import { usd } from "../helpers/money.js";
import { plan } from "../helpers/plans.js";

const progress = (impressions: number, spend: string) => ({
  impressions_delivered: impressions,
  spend: usd(spend),
});
const codes = (p: { findings: { code: string; severity: string }[] }) =>
  p.findings.map((f) => `${f.severity} ${f.code}`);

describe("commitments beyond an insertion order's budget_money", () => {
  // IO 1002, 15,000 USD; three campaigns of 400,000 impressions at 15 USD, nothing delivered:
  // 400,000 x 15 / 1000 = 6,000 each, 18,000 in all: 3,000 above the budget.
  const io = liveIo({
    id: "1002",
    name: "Spring travel",
    contract_number: "C-7",
    budget_impressions: null,
    budget_money: usd("15000"),
  });
  const three = ["5101", "5102", "5103"].map((id, i) =>
    liveCampaign({
      id,
      insertion_order_id: "1002",
      name: `C${i}`,
      active: i === 0, // inactive campaigns count: a later apply can reactivate them
      budget_impressions: 400_000,
      cpm: usd("15"),
      progress: progress(0, "0"),
    }),
  );
  const live = liveState({ insertionOrders: [io], campaigns: three });

  it("warns, naming both amounts, whatever made it so (DOOH803)", () => {
    const p = plan(desiredState([desiredIo("1002")]), live);
    expect(codes(p)).toEqual(["warning DOOH803"]);
    expect(p.findings[0]!.message).toBe(
      'insertion order 1002 "Spring travel" (contract C-7): its campaigns can spend up to 18,000.00 USD (maximum spend of its campaigns, live and planned), more than its budget_money 15,000.00 USD by 3,000.00 USD',
    );
  });

  it("counts what is spent and the budget after the plan: a raise to 18,000 clears it", () => {
    const raised = plan(desiredState([desiredIo("1002", { fields: { budget_money: usd("18000") } })]), live);
    expect(codes(raised)).toEqual([]);
    // 5101 delivered 100,000 at 10 USD (1,000 spent): 1,000 + 300,000 x 15 / 1000 = 5,500;
    // 5,500 + 6,000 + 6,000 = 17,500, above 15,000 by 2,500.
    const delivered = liveState({
      insertionOrders: [io],
      campaigns: [{ ...three[0]!, progress: progress(100_000, "1000") }, three[1]!, three[2]!],
    });
    expect(plan(desiredState([desiredIo("1002")]), delivered).findings[0]!.message).toContain(
      "can spend up to 17,500.00 USD (maximum spend of its campaigns, live and planned), more than its budget_money 15,000.00 USD by 2,500.00 USD",
    );
  });

  it("denies a 10x cpm under commitments_within_budget (DOOH906), which --allow lets through", () => {
    // IO 1001, 25,000 USD; 5001 100,000 impressions at 12 USD, nothing delivered. cpm 12 -> 368:
    // 100,000 x 368 / 1000 = 36,800, above 25,000 by 11,800.
    const one = liveState({ campaigns: [liveCampaign({ progress: progress(0, "0") })] });
    const rule: PolicyRule = { action: "deny", source: source(2, "policy.commitments_within_budget") };
    const d = {
      ...desiredState([
        desiredIo("1001", { campaigns: [desiredCampaign("Airports", { fields: { cpm: usd("368") } })] }),
      ]),
      policy: { commitments_within_budget: rule },
    };
    const denied = plan(d, one);
    expect(codes(denied)).toContain("error DOOH906");
    expect(denied.requests).toEqual([]);
    expect(denied.findings.find((f) => f.code === "DOOH906")!.message).toContain(
      "can spend up to 36,800.00 USD (maximum spend of its campaigns, live and planned), more than its budget_money 25,000.00 USD by 11,800.00 USD: policy doohctl.yaml:2 (policy.commitments_within_budget) denies it",
    );
    const allowed = plan(d, one, { allowed: ["DOOH906"] });
    expect(codes(allowed)).toContain("warning DOOH906");
    expect(allowed.requests.length).toBeGreaterThan(0);
  });

  it("is checked by validate where the config alone decides, as a warning with exit 0", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "doohctl-commitments-"));
    // 2 x 500,000 x 15 / 1000 = 15,000 + 1 x 200,000 x 15 / 1000 = 3,000: 18,000 against 15,000
    writeFileSync(
      join(cwd, "doohctl.yaml"),
      [
        "version: 1",
        "insertion_orders:",
        '  - id: "1002"',
        "    budget_money: 15000 USD",
        "    campaigns:",
        "      - { name: A, budget_impressions: 500000, cpm: 15 USD }",
        "      - { name: B, budget_impressions: 500000, cpm: 15 USD }",
        "      - { name: C, budget_impressions: 200000, cpm: 15 USD }",
        "      - { name: D }",
        "",
      ].join("\n"),
    );
    const io = bufferIO({ cwd });
    expect(await run(["validate"], io)).toBe(0);
    expect(io.err()).toBe(
      "warning: doohctl.yaml:4:19: DOOH803 insertion order 1002: its campaigns can spend up to 18,000.00 USD (budget_impressions x cpm / 1000 of its declared campaigns), more than its budget_money 15,000.00 USD by 3,000.00 USD\n",
    );
  });
});
