/**
 * DOOH304: a budget cut in flight leaving less than `--min-budget-days` at its pace (G2's one
 * sample: delivered / elapsed), judged exactly; a cut to its delivery is a dark path instead.
 */
import { grouped } from "../../model/plural.js";
import { Ratio } from "../../model/ratio.js";
import { Time } from "../../model/time.js";
import { finding } from "../finding-catalogue.js";
import type { LiveIndex } from "../live-index.js";
import type { Change, Finding, PlanThresholds } from "../types.js";

const DAY_MS = 86_400_000;

function days(ms: Ratio): string {
  return `${Ratio.toFixed(Ratio.divide(ms, Ratio.of(DAY_MS)), 1)} days`;
}

export function shortBudgets(input: {
  changes: readonly Change[];
  live: LiveIndex;
  now: string;
  thresholds: Required<PlanThresholds>;
}): Finding[] {
  const now = Time.toMillis(input.now);
  const minMs = Ratio.multiply(Ratio.fromDecimal(input.thresholds.min_budget_days), Ratio.of(DAY_MS));
  return input.changes.flatMap((c) => {
    if (c.kind !== "update_campaign" || c.campaign.campaign_id === undefined) return [];
    const live = input.live.campaigns.get(c.campaign.campaign_id);
    const budget = c.fields.find((f) => f.field === "budget_impressions");
    const delivered = live?.progress?.impressions_delivered;
    if (!live?.active || !live.in_flight || !budget || delivered === undefined) return [];
    if (
      typeof budget.after !== "number" ||
      typeof budget.before !== "number" ||
      budget.after >= budget.before
    )
      return [];
    const deactivated = c.fields.some((f) => f.field === "active" && f.after === false);
    const elapsed = now - Time.toMillis(live.start_time);
    if (deactivated || budget.after <= delivered || delivered === 0 || elapsed <= 0) return [];
    const endField = c.fields.find((f) => f.field === "end_time")?.after;
    const end = Time.toMillis(typeof endField === "string" ? endField : live.end_time);
    const left = budget.after - delivered;
    // delivered / elapsed is the pace; the rest lasts left / pace = left x elapsed / delivered.
    const lasts = Ratio.of(BigInt(left) * BigInt(elapsed), delivered);
    const flightLeft = Ratio.of(end - now);
    if (Ratio.compare(lasts, minMs) >= 0 || Ratio.compare(lasts, flightLeft) >= 0) return [];
    const perDay = BigInt(Ratio.toFixed(Ratio.of(BigInt(delivered) * BigInt(DAY_MS), elapsed), 0));
    return [
      finding(
        "DOOH304",
        `cuts budget_impressions of campaign ${live.id} "${live.name}", in flight, ${grouped(budget.before)} -> ${grouped(budget.after)}: the ${grouped(left)} impressions left last about ${days(lasts)} at its pace of ${grouped(perDay)} a day (${grouped(delivered)} delivered in ${days(Ratio.of(elapsed))}), less than --min-budget-days ${input.thresholds.min_budget_days}; it would go dark about ${days(Ratio.subtract(flightLeft, lasts))} before its flight ends`,
        { address: c.address, change_ids: [c.id], source: budget.source ?? c.source },
      ),
    ];
  });
}
