/**
 * Commitments (docs/plan.md, "Commitments"): an order's campaigns can spend more than its
 * `budget_money`, or in a currency never converted: DOOH803, or DOOH906 under
 * `commitments_within_budget` (sums: policy.ts). `validate` loads it alone, so it imports no plan.
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
  /** Maximum spend in other currencies than the budget's: never converted, never compared. */
  elsewhere?: Money[];
  /** G15: campaigns whose spend in the budget's currency is unreported: counted at what is left. */
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

/** DOOH803, or where `commitments_within_budget` holds, its DOOH906 breach (policy.ts words it). */
export function commitmentFinding(c: Commitment, breach?: (denial: Finding) => Finding): Finding {
  const message = commitmentMessage(c, "maximum spend of its campaigns, live and planned");
  const extra = {
    address: `insertion_order.${c.insertion_order.id}`,
    change_ids: c.change_ids,
    source: c.source,
  };
  return breach ? breach(finding("DOOH906", message, extra)) : finding("DOOH803", message, extra);
}

/** What `validate` says alone: declared campaigns' budget_impressions x cpm / 1000 above `budget_money`. */
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
