/**
 * G8 (docs/assumptions.md#g8): the rules the DSP enforces on every write, judged once for the
 * client, by `validate` (config/rules.ts: an end of a flight may be undeclared) and the plan's
 * simulation (plan/findings/simulate.ts); each words a breach its own way. The emulator's oracle
 * (src/emulator/rules.ts) is its own; test/model/write-rules.test.ts checks they agree. Times
 * compare exactly (G14).
 */
import { Time } from "./time.js";

/** A flight as far as it is known: either end may be undeclared (a config). */
export interface Flight {
  start_time?: string | undefined;
  end_time?: string | undefined;
}

/** What G8 reads of an insertion order; `null` budgets are not set. */
export interface InsertionOrderTerms extends Flight {
  budget_impressions?: number | null | undefined;
  budget_money?: { currency_code: string } | null | undefined;
}

/** What G8 reads of a campaign. */
export interface CampaignTerms extends Flight {
  cpm?: { currency_code: string } | undefined;
}

/** One end of a flight. */
export type FlightEnd = "start_time" | "end_time";

/** A rule broken, with what its caller needs to say so. */
export type WriteRuleBreach =
  /** The flight does not start strictly before it ends. */
  | { rule: "flight_order" }
  /**
   * A campaign's flight end `field` lies outside its insertion order's flight, across the
   * insertion order's `bound`: before its start, or past its end.
   */
  | { rule: "within_flight"; field: FlightEnd; bound: FlightEnd }
  /** The insertion order's campaigns hold more impressions than its budget. */
  | { rule: "budget_sum"; sum: number; budget: number }
  /** A campaign's cpm is not in its insertion order's `budget_money` currency. */
  | { rule: "currency"; currency: string; expected: string };

const NONE: readonly WriteRuleBreach[] = Object.freeze([]);

/** Whether a flight, as far as it is known, starts strictly before it ends. */
function ordered(flight: Flight): boolean {
  const { start_time: start, end_time: end } = flight;
  return start === undefined || end === undefined || Time.compare(start, end) < 0;
}

/**
 * Where a campaign's flight leaves its insertion order's, as far as declared: one known end past
 * the insertion order's other end cannot fit either (flights are non-empty).
 */
function outside(campaign: Flight, io: Flight): WriteRuleBreach[] {
  const { start_time: start, end_time: end } = campaign;
  const { start_time: ioStart, end_time: ioEnd } = io;
  const out: WriteRuleBreach[] = [];
  if (start !== undefined && ioStart !== undefined && Time.compare(start, ioStart) < 0) {
    out.push({ rule: "within_flight", field: "start_time", bound: "start_time" });
  }
  if (end === undefined && start !== undefined && ioEnd !== undefined && Time.compare(start, ioEnd) >= 0) {
    out.push({ rule: "within_flight", field: "start_time", bound: "end_time" });
  }
  if (start === undefined && end !== undefined && ioStart !== undefined && Time.compare(end, ioStart) <= 0) {
    out.push({ rule: "within_flight", field: "end_time", bound: "start_time" });
  }
  if (end !== undefined && ioEnd !== undefined && Time.compare(end, ioEnd) > 0) {
    out.push({ rule: "within_flight", field: "end_time", bound: "end_time" });
  }
  return out;
}

/** The rules one campaign breaks against its insertion order: flight order, flight, cpm currency. */
function campaign(terms: CampaignTerms, io: InsertionOrderTerms): readonly WriteRuleBreach[] {
  let out: WriteRuleBreach[] | undefined;
  const add = (breach: WriteRuleBreach) => {
    out ??= [];
    out.push(breach);
  };
  if (!ordered(terms)) add({ rule: "flight_order" });
  for (const breach of outside(terms, io)) add(breach);
  const expected = io.budget_money?.currency_code;
  const currency = terms.cpm?.currency_code;
  if (expected !== undefined && currency !== undefined && currency !== expected) {
    add({ rule: "currency", currency, expected });
  }
  return out ?? NONE;
}

/** The rules an insertion order breaks: its flight order, its campaigns' budgets (summed) over its own. */
function insertionOrder(terms: InsertionOrderTerms, campaignBudgets: number): readonly WriteRuleBreach[] {
  let out: WriteRuleBreach[] | undefined;
  if (!ordered(terms)) out = [{ rule: "flight_order" }];
  const budget = terms.budget_impressions;
  if (budget !== undefined && budget !== null && campaignBudgets > budget) {
    out ??= [];
    out.push({ rule: "budget_sum", sum: campaignBudgets, budget });
  }
  return out ?? NONE;
}

export const WriteRules = { campaign, insertionOrder, ordered };
