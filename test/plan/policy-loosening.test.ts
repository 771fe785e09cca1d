/**
 * Loosening a guardrail is itself a finding: one PR raised max_cpm to
 * 100 USD with warn and the cpm increase limit to 1000%, and the PR comment showed only DOOH303.
 */
import { describe, expect, it } from "vitest";
import type { PolicyRule, PolicyRules } from "../../src/model/desired.js";
import { changedSince } from "../../src/plan/changes/changed.js";
import { parsePlan, serializePlan } from "../../src/plan/saved/file.js";
import {
  desiredCampaign,
  desiredIo,
  desiredState,
  liveCampaign,
  liveState,
  source,
} from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { markdownOf, plan } from "../helpers/plans.js";

const rule = (line: number, extra: Partial<PolicyRule> = {}): PolicyRule => ({
  action: "deny",
  source: source(line, "policy.rule"),
  ...extra,
});

function config(policy: PolicyRules | undefined, own?: PolicyRules) {
  const io = desiredIo("1001", {
    campaigns: [desiredCampaign("Airports", { fields: { cpm: usd("97.5") } })],
  });
  if (own) io.policy = own;
  const state = desiredState([io]);
  return policy ? { ...state, policy } : state;
}

const REF = { since: "origin/main", commit: "0123456789abcdef0123" };
const base = config({
  max_cpm: rule(2, { limits: [usd("25")] }),
  cpm_increase_percent: rule(3, { limit: 20 }),
});
const head = config({
  max_cpm: rule(2, { action: "warn", limits: [usd("100")] }),
  cpm_increase_percent: rule(3, { limit: 1000 }),
});

describe("a change that loosens the policy (DOOH907)", () => {
  it("lists each rule loosened against the config at --changed-since REF, with where it is written", () => {
    expect(changedSince(base, head, REF).loosened_policy).toEqual([
      "policy.max_cpm: deny -> warn (doohctl.yaml:2)",
      "policy.max_cpm: 25.00 USD -> 100.00 USD (doohctl.yaml:2)",
      "policy.cpm_increase_percent: limit 20% -> 1000% (doohctl.yaml:3)",
    ]);
    // Tightening, or the same rules, loosen nothing.
    expect(changedSince(head, base, REF).loosened_policy).toBeUndefined();
    expect(changedSince(base, base, REF).loosened_policy).toBeUndefined();
  });

  it("lists a removed rule, and an insertion order's own rule once, not the top-level ones again", () => {
    const own = config(
      { max_cpm: rule(2, { limits: [usd("25")] }) },
      { max_cpm: rule(9, { limits: [usd("15")] }) },
    );
    const dropped = config({ max_cpm: rule(2, { limits: [usd("25")] }) });
    expect(changedSince(own, dropped, REF).loosened_policy).toEqual([
      "insertion order 1001 policy.max_cpm: 15.00 USD -> 25.00 USD (doohctl.yaml:2)",
    ]);
    expect(changedSince(base, config(undefined), REF).loosened_policy).toEqual([
      "policy.max_cpm: removed",
      "policy.cpm_increase_percent: removed",
    ]);
  });

  it("is a warning listed first, and first in the PR comment, with the --allow codes and threshold flags in use", () => {
    const live = liveState({ campaigns: [liveCampaign({ in_flight: true })] });
    const scope = changedSince(base, head, REF);
    const p = plan(head, live, {
      changed: scope,
      allowed: ["DOOH903"],
      thresholds: { budget_increase_percent: 80, min_budget_days: 1 },
    });
    expect(p.findings[0]).toMatchObject({
      code: "DOOH907",
      severity: "warning",
      message:
        "this change loosens the guardrail policy since origin/main (0123456789ab): policy.max_cpm: deny -> warn (doohctl.yaml:2); policy.max_cpm: 25.00 USD -> 100.00 USD (doohctl.yaml:2); policy.cpm_increase_percent: limit 20% -> 1000% (doohctl.yaml:3)",
    });
    const comment = markdownOf(p).split("\n");
    expect(comment.slice(2, 9)).toEqual([
      "> **Guardrail policy loosened since origin/main (0123456789abcdef0123) (DOOH907):**",
      "> - policy.max_cpm: deny -> warn (doohctl.yaml:2)",
      "> - policy.max_cpm: 25.00 USD -> 100.00 USD (doohctl.yaml:2)",
      "> - policy.cpm_increase_percent: limit 20% -> 1000% (doohctl.yaml:3)",
      "",
      "> **Policy denials allowed by --allow: `DOOH903`.**",
      "",
    ]);
    // The saved plan keeps both, and loads back through the schema.
    const json = serializePlan(p);
    expect(parsePlan(json, "plan.json")).toEqual(JSON.parse(json));
    expect(comment[9]).toBe(
      "> **Threshold flags in use: `--budget-increase-threshold 80`, `--min-budget-days 1`.**",
    );
  });

  it("says in the PR comment that it could not compare without a REF", () => {
    const p = plan(head, liveState({ campaigns: [liveCampaign()] }));
    expect(p.summary.policy).toEqual({ loosened: [] });
    expect(p.findings.map((f) => f.code)).not.toContain("DOOH907");
    expect(markdownOf(p)).toContain(
      "> Policy not compared with a base revision: run the plan with `--changed-since REF` to list the rules a change loosens.",
    );
  });
});
