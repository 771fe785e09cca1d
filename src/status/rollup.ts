/**
 * `doohctl status` per insertion order: the reported campaigns of each, summed. Impressions
 * add up across campaigns; spend adds up per currency only (an insertion order's campaigns
 * may be priced in more than one), exact (src/model/money.ts). The budget of an insertion
 * order is the sum of its campaigns' maximum spend, the plan's figure (src/plan/findings/spend.ts).
 */
import { Money } from "../model/money.js";
import { Time } from "../model/time.js";
import type { InsertionOrder } from "../model/wire.js";

export interface InsertionOrderStatus {
  id: string;
  campaigns: number;
  /** The span of its reported campaigns' flights. */
  start_time: string;
  end_time: string;
  impressions: { delivered: number; budget: number; projected: number };
  /** One entry per currency, exact amounts, in the order first met. */
  spend: { amount: string; budget: string }[];
  /** The insertion order's own `budget_money`, exact; null when it has none; absent when not read. */
  budget_money?: string | null;
  /** Its campaigns with at least one alert. */
  alerting: number;
}

/** What the rollup reads of a campaign's status (src/status/status.ts): structural, so no import comes back. */
interface CampaignFigures {
  insertion_order_id: string;
  start_time: string;
  end_time: string;
  impressions: { delivered: number; budget: number };
  pacing: { projected_impressions: number };
  alerts: readonly unknown[];
  spend: { amount: string; maximum: readonly string[] };
}

export function rollup(
  statuses: readonly CampaignFigures[],
  insertionOrders?: readonly InsertionOrder[],
): InsertionOrderStatus[] {
  const budgets = new Map((insertionOrders ?? []).map((io) => [io.id, io.budget_money]));
  const orders = new Map<string, { row: InsertionOrderStatus; money: Map<string, [bigint, bigint]> }>();
  for (const status of statuses) {
    const entry = orders.get(status.insertion_order_id) ?? {
      row: {
        id: status.insertion_order_id,
        campaigns: 0,
        start_time: status.start_time,
        end_time: status.end_time,
        impressions: { delivered: 0, budget: 0, projected: 0 },
        spend: [],
        alerting: 0,
      },
      money: new Map<string, [bigint, bigint]>(),
    };
    const row = entry.row;
    row.campaigns += 1;
    if (Time.compare(status.start_time, row.start_time) < 0) row.start_time = status.start_time;
    if (Time.compare(status.end_time, row.end_time) > 0) row.end_time = status.end_time;
    row.impressions.delivered += status.impressions.delivered;
    row.impressions.budget += status.impressions.budget;
    row.impressions.projected += status.pacing.projected_impressions;
    if (status.alerts.length > 0) row.alerting += 1;
    // Each amount in its own currency: spend in an old cpm currency is never added to the new one.
    const add = (currency: string, spent: bigint, budget: bigint) => {
      const [s, b] = entry.money.get(currency) ?? [0n, 0n];
      entry.money.set(currency, [s + spent, b + budget]);
    };
    const spent = Money.parse(status.spend.amount);
    for (const text of status.spend.maximum) {
      const maximum = Money.parse(text);
      add(maximum.currency_code, 0n, Money.toNanos(maximum));
    }
    add(spent.currency_code, Money.toNanos(spent), 0n);
    orders.set(status.insertion_order_id, entry);
  }
  return [...orders.values()].map(({ row, money }) => {
    const budget = budgets.get(row.id);
    return {
      ...row,
      ...(budgets.has(row.id) ? { budget_money: budget ? Money.format(Money.fromWire(budget)) : null } : {}),
      spend: [...money].map(([currency, [s, b]]) => ({
        amount: Money.format(Money.fromNanos(s, currency)),
        budget: Money.format(Money.fromNanos(b, currency)),
      })),
    };
  });
}
