/**
 * Commitments (docs/plan.md, "Commitments"): the campaigns of an insertion order, live and
 * planned, declared in the config or not, can spend their maximum spend (spend.ts); when that
 * sum is above the insertion order's `budget_money` the contract can be overspent; so can it when
 * they have spent or can spend in another currency, which is never converted. A warning
 * (DOOH803), or under the policy rule `commitments_within_budget` a denial (DOOH906); the
 * sums are policy.ts's (`overcommitted`). `validate` checks the same where the config alone
 * decides (`configCommitments`), so this module loads nothing of a plan's.
 */
import type { DesiredInsertionOrder, DesiredState, SourceRef } from "../../model/desired.js";
import { Money } from "../../model/money.js";
import { finding } from "../finding-catalogue.js";
import type { Finding } from "../types.js";

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
function commitmentMessage(c: Commitment, basis: string): string {
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

/** Divides a sum of products (nano-units x 1000) by 1000 once, rounding half up to the nano. */
export function toMoney(milliNanos: bigint, currency: string): Money {
  return Money.fromNanos((milliNanos + 500n) / 1000n, currency);
}

/**
 * A plan's DOOH803 for an overcommitted insertion order, or, where `commitments_within_budget`
 * is in force, that rule's breach of DOOH906 (policy.ts words the rule).
 */
export function commitmentFinding(c: Commitment, breach?: (denial: Finding) => Finding): Finding {
  const message = commitmentMessage(c, "maximum spend of its campaigns, live and planned");
  const extra = {
    address: `insertion_order.${c.insertion_order.id}`,
    change_ids: c.change_ids,
    source: c.source,
  };
  return breach ? breach(finding("DOOH906", message, extra)) : finding("DOOH803", message, extra);
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
