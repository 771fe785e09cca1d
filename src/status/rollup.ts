/**
 * `doohctl status` per insertion order: its reported campaigns summed, spend per currency only,
 * exact. Its budget is the sum of their maximum spend, the plan's figure (src/plan/findings/spend.ts).
 * A currency where some spend is not reported (G15) has no sum: `amount` is null and `not_reported`
 * names the campaigns, never a 0 it cannot know.
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
  /**
   * One entry per currency, exact amounts, in the order first met. `amount` is null when the
   * spend of the campaigns `not_reported` names is not known in that currency (G15); `budget`
   * then counts only what they have left to buy in it.
   */
  spend: { amount: string | null; budget: string; not_reported?: string[] }[];
  /** The insertion order's own `budget_money`, exact; null when it has none; absent when not read. */
  budget_money?: string | null;
  /** Its campaigns with at least one alert. */
  alerting: number;
}

/** What the rollup reads of a campaign's status: structural, so no import comes back. */
interface CampaignFigures {
  id: string;
  insertion_order_id: string;
  start_time: string;
  end_time: string;
  impressions: { delivered: number; budget: number };
  pacing: { projected_impressions: number };
  alerts: readonly unknown[];
  spend: { amount: string; maximum: readonly string[]; not_reported?: string };
}

/** Per currency: spent and budget in nanos, and the campaigns whose spend in it is not reported. */
interface Tally {
  spent: bigint;
  budget: bigint;
  notReported: string[];
}

export function rollup(
  statuses: readonly CampaignFigures[],
  insertionOrders?: readonly InsertionOrder[],
): InsertionOrderStatus[] {
  const budgets = new Map((insertionOrders ?? []).map((io) => [io.id, io.budget_money]));
  const orders = new Map<string, { row: InsertionOrderStatus; money: Map<string, Tally> }>();
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
      money: new Map<string, Tally>(),
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
    const tally = (currency: string): Tally => {
      const found = entry.money.get(currency) ?? { spent: 0n, budget: 0n, notReported: [] };
      entry.money.set(currency, found);
      return found;
    };
    const spent = Money.parse(status.spend.amount);
    for (const text of status.spend.maximum) {
      const maximum = Money.parse(text);
      tally(maximum.currency_code).budget += Money.toNanos(maximum);
    }
    tally(spent.currency_code).spent += Money.toNanos(spent);
    if (status.spend.not_reported !== undefined) tally(status.spend.not_reported).notReported.push(status.id);
    orders.set(status.insertion_order_id, entry);
  }
  return [...orders.values()].map(({ row, money }) => {
    const budget = budgets.get(row.id);
    return {
      ...row,
      ...(budgets.has(row.id) ? { budget_money: budget ? Money.format(Money.fromWire(budget)) : null } : {}),
      spend: [...money].map(([currency, t]) => ({
        amount: t.notReported.length > 0 ? null : Money.format(Money.fromNanos(t.spent, currency)),
        budget: Money.format(Money.fromNanos(t.budget, currency)),
        ...(t.notReported.length > 0 ? { not_reported: t.notReported } : {}),
      })),
    };
  });
}
