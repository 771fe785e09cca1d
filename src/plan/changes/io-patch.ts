/** An insertion order's changes split into widening (phase 1) and narrowing (phase 7): I3, G8. */
import type { InsertionOrderFields } from "../../model/desired.js";
import { Money } from "../../model/money.js";
import { INSERTION_ORDER_FIELDS, withFlag } from "../../model/resource-fields.js";
import { Time } from "../../model/time.js";
import type { InsertionOrder, InsertionOrderPatch } from "../../model/wire.js";
import { valuesEqual } from "./compare.js";

type Patch = Omit<InsertionOrderPatch, "id">;

/** The members whose change widens or narrows the room campaigns have (G8), each below. */
const BOUNDED = ["start_time", "end_time", "budget_impressions", "budget_money"];

export function splitInsertionOrderPatch(
  desired: InsertionOrderFields,
  live: InsertionOrder,
): { widen: Patch; narrow: Patch } {
  const widen: Patch = {};
  const narrow: Patch = {};
  // A member G8 does not bound (contract_number) narrows nothing: it goes with the widening.
  for (const { name, kind } of withFlag(INSERTION_ORDER_FIELDS, "update")) {
    const want = (desired as Record<string, unknown>)[name];
    if (BOUNDED.includes(name) || want === undefined) continue;
    if (!valuesEqual(kind, want, (live as unknown as Record<string, unknown>)[name])) {
      (widen as Record<string, unknown>)[name] = want;
    }
  }
  if (desired.start_time !== undefined && !Time.equals(desired.start_time, live.start_time)) {
    if (Time.compare(desired.start_time, live.start_time) < 0) widen.start_time = desired.start_time;
    else narrow.start_time = desired.start_time;
  }
  if (desired.end_time !== undefined && !Time.equals(desired.end_time, live.end_time)) {
    if (Time.compare(desired.end_time, live.end_time) > 0) widen.end_time = desired.end_time;
    else narrow.end_time = desired.end_time;
  }
  const impressions = desired.budget_impressions;
  if (impressions !== undefined && impressions !== live.budget_impressions) {
    // null means "no impression budget": the widest there is (G8 bounds only a set budget).
    const wider =
      impressions === null || (live.budget_impressions !== null && impressions > live.budget_impressions);
    if (wider) widen.budget_impressions = impressions;
    else narrow.budget_impressions = impressions;
  }
  const money = desired.budget_money;
  const liveMoney = live.budget_money;
  if (
    money !== undefined &&
    !(money === null ? liveMoney === null : liveMoney !== null && Money.equals(money, liveMoney))
  ) {
    if (money === null) widen.budget_money = null;
    else if (liveMoney === null) narrow.budget_money = money;
    else if (money.currency_code !== liveMoney.currency_code) {
      // G8: campaign cpm currencies must match a set budget_money. Lift the budget while the
      // campaigns change currency, then set it in the new currency.
      widen.budget_money = null;
      narrow.budget_money = money;
    } else if (Money.compare(money, liveMoney) > 0) widen.budget_money = money;
    else narrow.budget_money = money;
  }
  return { widen, narrow };
}
