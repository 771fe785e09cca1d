/**
 * G8 on the state a write would produce: an insertion order and all its campaigns; callers name the
 * failing fields in their request's terms (a campaign batch, an insertion order patch, a seed).
 */

import { Time } from "../model/time.js";
import type { InsertionOrder } from "../model/wire.js";
import type { CampaignRecord } from "./store.js";

export interface RuleViolation {
  /** Which object breaks the rule: the insertion order itself, or one of its campaigns. */
  subject: "insertion_order" | "campaign";
  id: string;
  field: "start_time" | "end_time" | "budget_impressions" | "cpm" | "budget_money";
  message: string;
  /** The kind of rule, so a caller can restate it from its own side. */
  rule: "flight_order" | "within_flight" | "budget_sum" | "currency";
}

/** A flight must start before it ends. */
function flightOrder(
  subject: RuleViolation["subject"],
  id: string,
  start: string,
  end: string,
): RuleViolation[] {
  return Time.compare(start, end) >= 0
    ? [{ subject, id, field: "end_time", message: "must be after start_time", rule: "flight_order" }]
    : [];
}

export function checkInsertionOrder(
  io: InsertionOrder,
  campaigns: Iterable<CampaignRecord>,
): RuleViolation[] {
  const out: RuleViolation[] = [];
  // Exact to the nanosecond (G14): times may carry more than milliseconds.
  const ioStart = io.start_time;
  const ioEnd = io.end_time;
  out.push(...flightOrder("insertion_order", io.id, ioStart, ioEnd));
  let total = 0;
  const currency = io.budget_money?.currency_code;
  for (const c of campaigns) {
    total += c.budget_impressions;
    const start = c.start_time;
    const end = c.end_time;
    out.push(...flightOrder("campaign", c.id, start, end));
    if (Time.compare(start, ioStart) < 0) {
      out.push({
        subject: "campaign",
        id: c.id,
        field: "start_time",
        message: `must not be before insertion order ${io.id} starts (${io.start_time})`,
        rule: "within_flight",
      });
    }
    if (Time.compare(end, ioEnd) > 0) {
      out.push({
        subject: "campaign",
        id: c.id,
        field: "end_time",
        message: `must not be after insertion order ${io.id} ends (${io.end_time})`,
        rule: "within_flight",
      });
    }
    if (currency !== undefined && c.cpm.currency_code !== currency) {
      out.push({
        subject: "campaign",
        id: c.id,
        field: "cpm",
        message: `currency must be ${currency}, the currency of insertion order ${io.id}'s budget_money`,
        rule: "currency",
      });
    }
  }
  if (io.budget_impressions !== null && total > io.budget_impressions) {
    out.push({
      subject: "insertion_order",
      id: io.id,
      field: "budget_impressions",
      message: `campaigns of insertion order ${io.id} would hold ${total} impressions, above its budget_impressions of ${io.budget_impressions}`,
      rule: "budget_sum",
    });
  }
  return out;
}
