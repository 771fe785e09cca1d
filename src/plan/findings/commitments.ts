/**
 * Commitments (docs/plan.md, "Commitments"): the campaigns of an insertion order, live and
 * planned, declared in the config or not, can spend their maximum spend (spend.ts); when that
 * sum is above the insertion order's `budget_money` the contract can be overspent; so can it when
 * they have spent or can spend in another currency, which is never converted. A warning
 * (DOOH803), or under the policy rule `commitments_within_budget` a denial (DOOH906).
 * `validate` checks the same where the config alone decides (`configCommitments`).
 */
import type { DesiredInsertionOrder, DesiredState, PolicyRule, SourceRef } from "../../model/desired.js";
import { Money } from "../../model/money.js";
import { compareIds } from "../../model/targeting.js";
import { Time } from "../../model/time.js";
import type { LiveIndex } from "../live-index.js";
import type { Change, Finding } from "../types.js";
import { finding } from "./findings.js";
import { budgetedCampaigns, maximumSpend } from "./spend.js";

export interface Commitment {
  /** `name` is unknown offline (`validate`): the API owns it (G1). */
  insertion_order: { id: string; name?: string; contract_number: string | null };
  budget: Money;
  committed: Money;
  /**
   * The campaigns' maximum spend in currencies other than the budget's (spend in an old cpm
   * currency): never converted, so the budget cannot be compared with it.
   */
  elsewhere?: Money[];
  /**
   * G15: campaigns whose spend in the budget's currency the DSP does not report (their cpm
   * changed currency): `committed` counts only what they have left to buy in it.
   */
  not_reported?: string[];
  /** Where the budget is declared, or the insertion order. */
  source?: SourceRef;
  change_ids: string[];
}

function label(io: Commitment["insertion_order"]): string {
  const contract = io.contract_number ? ` (contract ${io.contract_number})` : "";
  return `insertion order ${io.id}${io.name !== undefined ? ` "${io.name}"` : ""}${contract}`;
}

/** The message of DOOH803 and DOOH906: both amounts and by how much. */
export function commitmentMessage(c: Commitment, basis: string): string {
  const over = Money.compare(c.committed, c.budget) > 0;
  const within = over
    ? `its campaigns can spend up to ${Money.formatAmount(c.committed)} (${basis}), more than its budget_money ${Money.formatAmount(c.budget)} by ${Money.formatAmount(Money.subtract(c.committed, c.budget))}`
    : `its campaigns can spend up to ${Money.formatAmount(c.committed)} (${basis}), within its budget_money ${Money.formatAmount(c.budget)}`;
  const other = c.elsewhere ?? [];
  const note =
    other.length > 0
      ? `; they have spent or can spend ${other.map((m) => Money.formatAmount(m)).join(" and ")} as well, which cannot be compared with a budget in ${c.budget.currency_code} (never converted)`
      : "";
  const unknown = c.not_reported ?? [];
  const unreported =
    unknown.length > 0
      ? `; ${unknown.length === 1 ? `campaign ${unknown[0]} has` : `campaigns ${unknown.join(", ")} have`} spent an amount in ${c.budget.currency_code} the DSP does not report (G15, docs/assumptions.md#g15), not counted, so the budget cannot be checked against it`
      : "";
  return `${label(c.insertion_order)}: ${within}${note}${unreported}`;
}

/** Divides the sum of products by 1000 once, rounding half up to the nano (as spend.ts). */
function toMoney(milliNanos: bigint, currency: string): Money {
  return Money.fromNanos((milliNanos + 500n) / 1000n, currency);
}

/** Insertion orders whose campaigns can spend more than their budget_money after the plan. */
export function overcommitted(input: {
  changes: readonly Change[];
  live: LiveIndex;
  desired: DesiredState;
  now: string;
}): Commitment[] {
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
      const { spent, left } = maximumSpend(c.after, c.progress, now);
      for (const [currency, amount] of [...spent, ...left]) {
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

/** DOOH803 for each overcommitted insertion order, or DOOH906 where its policy rule is in force. */
export function commitmentFindings(
  input: Parameters<typeof overcommitted>[0] & {
    ruleFor: (insertionOrderId: string) => PolicyRule | undefined;
    breach: (rule: PolicyRule, denial: Finding) => Finding;
  },
): Finding[] {
  return overcommitted(input).map((c) => {
    const rule = input.ruleFor(c.insertion_order.id);
    const message = commitmentMessage(c, "maximum spend of its campaigns, live and planned");
    const extra = {
      address: `insertion_order.${c.insertion_order.id}`,
      change_ids: c.change_ids,
      source: c.source,
    };
    return rule ? input.breach(rule, finding("DOOH906", message, extra)) : finding("DOOH803", message, extra);
  });
}

/**
 * What `validate` can say from the config alone: an insertion order declaring `budget_money`
 * whose declared campaigns' budget_impressions x cpm / 1000 (each declaring both, nothing
 * delivered yet) is already above it. Live campaigns the config does not declare, and what is
 * delivered, only `plan` can add.
 */
function configCommitments(desired: DesiredState): Commitment[] {
  return desired.insertionOrders.flatMap((io: DesiredInsertionOrder) => {
    const budget = io.fields.budget_money;
    if (!budget) return [];
    let sum = 0n;
    for (const c of io.campaigns) {
      const { budget_impressions: impressions, cpm } = c.fields;
      if (impressions === undefined || !cpm || cpm.currency_code !== budget.currency_code) continue;
      sum += BigInt(impressions) * Money.toNanos(cpm);
    }
    const committed = toMoney(sum, budget.currency_code);
    if (Money.compare(committed, budget) <= 0) return [];
    return [
      {
        insertion_order: { id: io.id, contract_number: io.fields.contract_number ?? null },
        budget,
        committed,
        source: io.fieldSources.budget_money ?? io.source,
        change_ids: [],
      },
    ];
  });
}

/** DOOH803 where the config alone decides (`validate`): a warning at the budget's line. */
export function configCommitmentFindings(desired: DesiredState): Finding[] {
  return configCommitments(desired).map((c) =>
    finding("DOOH803", commitmentMessage(c, "budget_impressions x cpm / 1000 of its declared campaigns"), {
      source: c.source,
    }),
  );
}
