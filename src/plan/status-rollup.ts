/**
 * `doohctl status` per insertion order: the reported campaigns of each, summed. Impressions
 * add up across campaigns; spend adds up per currency only (an insertion order's campaigns
 * may be priced in more than one), exact (src/model/money.ts).
 */
import { Money } from "../model/money.js";
import { Time } from "../model/time.js";
import type { CampaignStatus } from "./status.js";

export interface InsertionOrderStatus {
  id: string;
  campaigns: number;
  /** The span of its reported campaigns' flights. */
  start_time: string;
  end_time: string;
  impressions: { delivered: number; budget: number; projected: number };
  /** One entry per currency, exact amounts, in the order first met. */
  spend: { amount: string; budget: string }[];
  /** Its campaigns with at least one alert. */
  alerting: number;
}

export function rollup(statuses: readonly CampaignStatus[]): InsertionOrderStatus[] {
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
    const spent = Money.parse(status.spend.amount);
    const budget = Money.parse(status.spend.budget);
    const [s, b] = entry.money.get(budget.currency_code) ?? [0n, 0n];
    entry.money.set(budget.currency_code, [s + Money.toNanos(spent), b + Money.toNanos(budget)]);
    orders.set(status.insertion_order_id, entry);
  }
  return [...orders.values()].map(({ row, money }) => ({
    ...row,
    spend: [...money].map(([currency, [s, b]]) => ({
      amount: Money.format(Money.fromNanos(s, currency)),
      budget: Money.format(Money.fromNanos(b, currency)),
    })),
  }));
}
