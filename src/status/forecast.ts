/**
 * A campaign's forecast from the DSP's one progress sample (G2: no history): pace = delivered /
 * elapsed flight, projection = delivered + pace × remaining, capped at the budget. Pacing is judged
 * against what the remaining budget needs over the remaining flight, not a straight line from the
 * start, which a mid-flight budget raise would make "behind" (docs/status.md, Pacing). Pure integer
 * arithmetic, no clock; every figure an exact `Ratio`, rounded once for JSON (`forecastFigures`)
 * and once more for people (docs/status.md, Rounding).
 */
import { Ratio } from "../model/ratio.js";
import { Time } from "../model/time.js";

export const DAY_MS = 86_400_000;

/** The forecast as the report's JSON carries it: each figure rounded once (`Ratio.toJson`). */
export interface Forecast {
  /** Impressions a day at the pace so far; 0 before the start or with nothing elapsed. */
  pace_per_day: number;
  /** Impressions a day the remaining budget needs over the remaining flight; 0 when none remains. */
  required_per_day: number;
  /** delivered + pace × remaining flight, rounded down, capped at the budget. */
  projected_impressions: number;
  /** Pace against required, in percent: -25 is a quarter too slow; 0 when not in flight. */
  difference_pct: number;
  /** When the budget runs out (to the minute; now when it already has) before `end_time`; absent when it does not. */
  exhausted_at?: string;
  /** Flight days left with nothing to deliver: from `exhausted_at` to `end_time`. */
  dark_days?: number;
}

/** The same forecast, exact: what verdicts and alerts compare. */
export interface ExactForecast {
  pacePerDay: Ratio;
  requiredPerDay: Ratio;
  projected: number;
  difference: Ratio;
  exhaustedAt?: string;
  darkDays?: Ratio;
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

export function forecast(input: ForecastInput): ExactForecast {
  const { start, end, now, delivered, budget } = input;
  const elapsed = Math.max(0, Math.min(now, end) - start);
  const remaining = Math.max(0, end - Math.max(now, start));
  const left = Math.max(0, budget - delivered);
  // pace = delivered / elapsed; pace × remaining = delivered × remaining / elapsed.
  const ahead =
    elapsed > 0 && input.delivering ? Ratio.of(BigInt(delivered) * BigInt(remaining), elapsed) : Ratio.zero;
  const projected = Math.min(budget, delivered + Number(Ratio.floor(ahead)));
  const base = {
    pacePerDay: elapsed > 0 ? Ratio.of(BigInt(delivered) * BigInt(DAY_MS), elapsed) : Ratio.zero,
    requiredPerDay: remaining > 0 ? Ratio.of(BigInt(left) * BigInt(DAY_MS), remaining) : Ratio.zero,
    projected: Math.max(delivered, projected),
  };
  const inFlight = now >= start && now < end;
  if (!inFlight) return { ...base, difference: Ratio.zero };
  if (left === 0) {
    // Delivered whole: dark from now at the latest (one sample cannot say since when).
    return {
      ...base,
      difference: Ratio.zero,
      exhaustedAt: Time.fromMillis(now),
      darkDays: Ratio.of(end - now, DAY_MS),
    };
  }
  // (pace × remaining / left - 1) × 100 = 100 × (delivered × remaining - elapsed × left) / (elapsed × left).
  const difference =
    elapsed > 0
      ? Ratio.of(
          100n * (BigInt(delivered) * BigInt(remaining) - BigInt(elapsed) * BigInt(left)),
          BigInt(elapsed) * BigInt(left),
        )
      : Ratio.zero;
  const result: ExactForecast = { ...base, difference };
  if (input.delivering && delivered > 0 && Ratio.compare(ahead, Ratio.of(left)) > 0) {
    // The rest lasts left / pace = left × elapsed / delivered ms from now.
    const exhausted = Ratio.add(Ratio.of(now), Ratio.of(BigInt(left) * BigInt(elapsed), delivered));
    return {
      ...result,
      exhaustedAt: Time.fromMillis(Number(Ratio.floor(Ratio.of(Ratio.floor(exhausted), 60_000))) * 60_000),
      darkDays: Ratio.divide(Ratio.subtract(Ratio.of(end), exhausted), Ratio.of(DAY_MS)),
    };
  }
  return result;
}

/** The forecast for JSON: each figure rounded once (src/model/ratio.ts, `toJson`). */
export function forecastFigures(f: ExactForecast): Forecast {
  return {
    pace_per_day: Ratio.toJson(f.pacePerDay),
    required_per_day: Ratio.toJson(f.requiredPerDay),
    projected_impressions: f.projected,
    difference_pct: Ratio.toJson(f.difference),
    ...(f.exhaustedAt !== undefined ? { exhausted_at: f.exhaustedAt } : {}),
    ...(f.darkDays !== undefined ? { dark_days: Ratio.toJson(f.darkDays) } : {}),
  };
}
