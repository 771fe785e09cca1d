/**
 * Guardrail policies (`policy:`, overridable per insertion order): a `deny` rule's breach is an
 * error (no requests) unless `--allow CODE` makes it a warning; a `warn` rule's is a warning.
 */
import type { DesiredState, PolicyRule, PolicyRules } from "../../model/desired.js";
import { Money } from "../../model/money.js";
import { compareIds } from "../../model/targeting.js";
import { Time } from "../../model/time.js";
import { finding } from "../finding-catalogue.js";
import type { LiveIndex } from "../live-index.js";
import type { Change, Finding, PlanThresholds, SpendDelta } from "../types.js";
import { changeSubject, describeIncrease, exceeds, increasePercent, show } from "./analyze.js";
import { type Commitment, commitmentFinding, toMoney } from "./commitments.js";
import { darkPaths } from "./dark-paths.js";
import { type Analyzer, runAnalyzers } from "./findings.js";
import { budgetedCampaigns, totalSpend } from "./spend.js";

export interface PolicyInput {
  desired: DesiredState;
  changes: readonly Change[];
  /** The live state, indexed once per plan. */
  live: LiveIndex;
  spend: readonly SpendDelta[];
  thresholds: Required<PlanThresholds>;
  /** `--allow`: policy codes whose deny becomes a warning. */
  allowed: readonly string[];
  /** The plan's clock: an end_time at or before it stops delivery (dark-paths.ts). */
  now: string;
}

/** The insertion order a change belongs to, for its override; undefined for a creative. */
function insertionOrderOf(change: Change): string | undefined {
  if (change.kind === "update_insertion_order") return change.insertion_order_id;
  if (change.kind === "update_creative") return undefined;
  return change.campaign.insertion_order_id;
}

/** The rules in force for an insertion order: its own, rule by rule, over the top-level ones. */
export function rulesFor(desired: DesiredState, insertionOrderId: string | undefined): PolicyRules {
  const own = desired.insertionOrders.find((io) => io.id === insertionOrderId)?.policy;
  return { ...desired.policy, ...own };
}

/** Whether a policy rule replaces DOOH401 for this field of this change. */
export function policedIncrease(desired: DesiredState, change: Change, field: string): boolean {
  const rules = rulesFor(desired, insertionOrderOf(change));
  return field === "cpm"
    ? rules.cpm_increase_percent !== undefined
    : rules.budget_increase_percent !== undefined;
}

/** A breach of `rule`: the catalogued denial, or a warning (a `warn` rule, `--allow`), naming the rule. */
function breach(input: PolicyInput, rule: PolicyRule, denial: Finding): Finding {
  const where = `${rule.source.file}:${rule.source.line} (${rule.source.path})`;
  const { code, message } = denial;
  if (rule.action === "warn") {
    return { ...denial, severity: "warning", message: `${message}: policy ${where} warns` };
  }
  if (input.allowed.includes(code)) {
    return {
      ...denial,
      severity: "warning",
      message: `${message}: policy ${where} denies it, allowed by --allow ${code}`,
    };
  }
  return {
    ...denial,
    message: `${message}: policy ${where} denies it; change the config, or pass --allow ${code} to apply anyway`,
  };
}

/**
 * The rule's limit in `currency` when `amount` is above it. A rule with limits binds every
 * currency, one it does not list at zero (docs/plan.md, "Currencies"): a switch never passes unlimited.
 */
function exceededLimit(rule: PolicyRule, currency: string, amount: Money): Money | undefined {
  if (rule.limits === undefined || rule.limits.length === 0) return undefined;
  const limit = rule.limits.find((m) => m.currency_code === currency) ?? Money.zero(currency);
  return Money.compare(amount, limit) > 0 ? limit : undefined;
}

/** `the highest cpm 25.00 USD`, or what a currency the rule does not list means. */
function limitText(rule: PolicyRule, limit: Money, what: string, listedText: string): string {
  const listed = rule.limits?.some((m) => m.currency_code === limit.currency_code) === true;
  if (listed) return listedText;
  const names = (rule.limits ?? []).map((m) => m.currency_code).join(", ");
  return `${what} in ${limit.currency_code}: the rule limits only ${names}, so nothing in ${limit.currency_code} is within it (add a ${limit.currency_code} limit to allow it)`;
}

function maxCpm(input: PolicyInput): Finding[] {
  return input.changes.flatMap((c) => {
    if (c.kind !== "create_campaign" && c.kind !== "update_campaign") return [];
    const rule = rulesFor(input.desired, c.campaign.insertion_order_id).max_cpm;
    const field = c.fields.find((f) => f.field === "cpm");
    const cpm = Money.fromValue(field?.after);
    if (!rule || !cpm) return [];
    const limit = exceededLimit(rule, cpm.currency_code, cpm);
    if (!limit) return [];
    return [
      breach(
        input,
        rule,
        finding(
          "DOOH901",
          `sets the cpm of ${changeSubject(c)} to ${Money.formatGrouped(cpm)}, above ${limitText(rule, limit, "the highest cpm", `the highest cpm ${Money.formatGrouped(limit)}`)}`,
          { address: c.address, change_ids: [c.id], source: field?.source ?? c.source },
        ),
      ),
    ];
  });
}

function increases(input: PolicyInput): Finding[] {
  return input.changes.flatMap((c) => {
    if (c.kind !== "update_campaign" && c.kind !== "update_insertion_order") return [];
    const rules = rulesFor(input.desired, insertionOrderOf(c));
    return c.fields.flatMap((f) => {
      const budget = f.field === "budget_impressions" || f.field === "budget_money";
      if (!budget && f.field !== "cpm") return [];
      const rule = budget ? rules.budget_increase_percent : rules.cpm_increase_percent;
      if (!rule) return [];
      // The DOOH401 threshold flags are the defaults of these rules.
      const limit =
        rule.limit ??
        (budget ? input.thresholds.budget_increase_percent : input.thresholds.cpm_increase_percent);
      const increase = increasePercent(f);
      if (increase === undefined || !exceeds(increase, limit)) return [];
      const message = `raises ${f.field} of ${changeSubject(c)}, ${show(f.before)} -> ${show(f.after)} (${describeIncrease(increase, limit)}, above the largest increase of ${limit}%)`;
      const extra = { address: c.address, change_ids: [c.id], source: f.source ?? c.source };
      // Each code written out where it is made (FINDING_CATALOGUE names this module for both).
      const denial = budget ? finding("DOOH902", message, extra) : finding("DOOH903", message, extra);
      return [breach(input, rule, denial)];
    });
  });
}

/** Per advertiser and currency (the money table's rows): a cut never offsets another advertiser's raise. */
function addedSpend(input: PolicyInput): Finding[] {
  const rule = input.desired.policy?.max_added_spend;
  if (!rule) return [];
  return input.spend.flatMap((delta) => {
    const added = Money.fromWire(delta.max_spend_change);
    const limit = exceededLimit(rule, delta.currency_code, added);
    if (!limit) return [];
    const advertiser =
      delta.advertiser_name !== undefined
        ? `advertiser ${delta.advertiser_id} "${delta.advertiser_name}"`
        : `advertiser ${delta.advertiser_id}`;
    return [
      breach(
        input,
        rule,
        finding(
          "DOOH904",
          `this plan adds ${Money.formatAmount(added)} of maximum spend for ${advertiser} (money table, docs/plan.md), above ${limitText(rule, limit, "the largest added spend per apply and advertiser", `the largest added spend ${Money.formatAmount(limit)} per apply and advertiser`)}`,
          { source: rule.source },
        ),
      ),
    ];
  });
}

/** Every dark path of a campaign in flight (dark-paths.ts), not only a deactivation. */
function deactivationsInFlight(input: PolicyInput): Finding[] {
  return darkPaths(input).flatMap((path) => {
    const live = path.campaign;
    const rule = rulesFor(input.desired, live.insertion_order_id).no_deactivation_in_flight;
    if (!rule) return [];
    return [
      breach(
        input,
        rule,
        finding(
          "DOOH905",
          `stops delivery of campaign ${live.id} "${live.name}" in flight (${live.start_time} to ${live.end_time}): ${path.reason}`,
          {
            ...(path.address !== undefined ? { address: path.address } : {}),
            change_ids: path.change_ids,
            source: path.source,
          },
        ),
      ),
    ];
  });
}

/** Insertion orders whose campaigns can spend more than their budget_money after the plan. */
function overcommitted(input: PolicyInput): Commitment[] {
  const now = Time.toMillis(input.now);
  const campaigns = budgetedCampaigns({ changes: input.changes, live: input.live });
  return [...input.live.insertionOrders.values()].flatMap((io) => {
    const change = input.changes.find(
      (c) => c.kind === "update_insertion_order" && c.insertion_order_id === io.id,
    );
    const field =
      change?.kind === "update_insertion_order"
        ? change.fields.find((f) => f.field === "budget_money")
        : undefined;
    const budget = field
      ? (Money.fromValue(field.after) ?? null)
      : io.budget_money && Money.fromWire(io.budget_money);
    if (!budget) return [];
    let sum = 0n;
    const other = new Map<string, bigint>();
    const notReported: string[] = [];
    for (const c of campaigns) {
      if (c.insertion_order_id !== io.id) continue;
      if (c.progress?.notReportedIn === budget.currency_code) notReported.push(c.campaign_id ?? "");
      for (const [currency, amount] of totalSpend(c.after, c.progress, now)) {
        if (currency === budget.currency_code) sum += amount;
        else other.set(currency, (other.get(currency) ?? 0n) + amount);
      }
    }
    const elsewhere = [...other]
      .filter(([, amount]) => amount > 0n)
      .map(([currency, amount]) => toMoney(amount, currency));
    // The changes that move the sum or the budget: the budget's, and the campaigns' creations and updates.
    const changeIds = input.changes
      .filter(
        (c) =>
          (c === change && field !== undefined) ||
          ((c.kind === "create_campaign" || c.kind === "update_campaign") &&
            c.campaign.insertion_order_id === io.id),
      )
      .map((c) => c.id);
    const committed = toMoney(sum, budget.currency_code);
    if (Money.compare(committed, budget) <= 0 && elsewhere.length === 0 && notReported.length === 0)
      return [];
    const desired = input.desired.insertionOrders.find((d) => d.id === io.id);
    const source = desired?.fieldSources.budget_money ?? desired?.source;
    return [
      {
        insertion_order: io,
        budget,
        committed,
        ...(elsewhere.length > 0 ? { elsewhere } : {}),
        ...(notReported.length > 0 ? { not_reported: notReported.sort(compareIds) } : {}),
        ...(source ? { source } : {}),
        change_ids: changeIds,
      },
    ];
  });
}

/** DOOH803, or DOOH906 where `commitments_within_budget` is in force for the insertion order. */
function commitments(input: PolicyInput): Finding[] {
  return overcommitted(input).map((c) => {
    const rule = rulesFor(input.desired, c.insertion_order.id).commitments_within_budget;
    return commitmentFinding(c, rule && ((denial) => breach(input, rule, denial)));
  });
}

/** The guardrail policy analyzers, in the order their findings are listed. */
export const POLICY_ANALYZERS: readonly Analyzer<PolicyInput>[] = [
  { name: "max-cpm", codes: ["DOOH901"], run: maxCpm },
  { name: "policed-increases", codes: ["DOOH902", "DOOH903"], run: increases },
  { name: "max-added-spend", codes: ["DOOH904"], run: addedSpend },
  { name: "no-deactivation-in-flight", codes: ["DOOH905"], run: deactivationsInFlight },
  // DOOH803 is the warning without the rule: not a policy code.
  { name: "commitments", codes: ["DOOH906", "DOOH803"], run: commitments },
];

/** A denied policy leaves nothing to apply (pass.ts). */
export function policyFindings(input: PolicyInput): Finding[] {
  return runAnalyzers(POLICY_ANALYZERS, input);
}
