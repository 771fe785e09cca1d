/**
 * A campaign's delivery forecast from the one progress sample the DSP gives (G2: no history):
 * the pace so far is delivered / elapsed flight time, the projection is delivered + pace ×
 * remaining flight, capped at the budget. Pacing is judged against what the remaining budget
 * needs over the remaining flight, not against a straight line from the flight's start for
 * today's budget, which a mid-flight budget raise would make "behind" whatever the DSP does
 * next (docs/status.md, Pacing). Pure arithmetic on numbers; no clock of its own. Every figure
 * is exact (unrounded): verdicts and alerts compare it with their thresholds as it is, and
 * only the text and Markdown renderers round it, once (docs/status.md, Rounding).
 */
import { Time } from "../model/time.js";

export const DAY_MS = 86_400_000;

export interface Forecast {
  /** Impressions a day at the pace so far; 0 before the start or with nothing elapsed. */
  pace_per_day: number;
  /** Impressions a day the remaining budget needs over the remaining flight; 0 when none remains. */
  required_per_day: number;
  /** delivered + pace × remaining flight, capped at the budget. */
  projected_impressions: number;
  /** Pace against required, in percent: -25 is a quarter too slow; 0 when not in flight. */
  difference_pct: number;
  /** When the budget runs out (to the minute; now when it already has) before `end_time`; absent when it does not. */
  exhausted_at?: string;
  /** Flight days left with nothing to deliver: from `exhausted_at` to `end_time`. */
  dark_days?: number;
}

export interface ForecastInput {
  start: number;
  end: number;
  now: number;
  delivered: number;
  budget: number;
  /** An inactive campaign delivers nothing more: no pace ahead, no exhaustion. */
  delivering: boolean;
}

export function forecast(input: ForecastInput): Forecast {
  const { start, end, now, delivered, budget } = input;
  const elapsed = Math.max(0, Math.min(now, end) - start);
  const remaining = Math.max(0, end - Math.max(now, start));
  const pace = elapsed > 0 ? delivered / elapsed : 0;
  const left = Math.max(0, budget - delivered);
  const projected = Math.min(budget, Math.floor(delivered + (input.delivering ? pace * remaining : 0)));
  const base = {
    pace_per_day: pace * DAY_MS,
    required_per_day: remaining > 0 ? (left / remaining) * DAY_MS : 0,
    projected_impressions: Math.max(delivered, projected),
  };
  const inFlight = now >= start && now < end;
  if (!inFlight) return { ...base, difference_pct: 0 };
  if (left === 0) {
    // Delivered whole: dark from now at the latest (one sample cannot say since when).
    return { ...base, difference_pct: 0, exhausted_at: Time.fromMillis(now), dark_days: days(end - now) };
  }
  const difference = elapsed > 0 ? ((pace * remaining) / left - 1) * 100 : 0;
  const result: Forecast = { ...base, difference_pct: difference };
  if (input.delivering && pace > 0 && pace * remaining > left) {
    const exhausted = now + left / pace;
    return {
      ...result,
      exhausted_at: Time.fromMillis(Math.floor(exhausted / 60_000) * 60_000),
      dark_days: days(end - exhausted),
    };
  }
  return result;
}

function days(ms: number): number {
  return ms / DAY_MS;
}
