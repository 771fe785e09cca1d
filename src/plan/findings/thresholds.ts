/**
 * The DOOH401 threshold flags as a saved plan records them (snake case, like the rest of the
 * file), so that `apply --plan` makes the plan again with the limits it was reviewed with: a
 * policy increase rule without its own `limit` takes them (DOOH902, DOOH903).
 */
import type { PlanThresholds, SavedThresholds } from "../types.js";

export function savedThresholds(thresholds: PlanThresholds | undefined): SavedThresholds | undefined {
  if (thresholds === undefined) return undefined;
  const saved: SavedThresholds = {
    ...(thresholds.budgetIncreasePercent !== undefined
      ? { budget_increase_percent: thresholds.budgetIncreasePercent }
      : {}),
    ...(thresholds.cpmIncreasePercent !== undefined
      ? { cpm_increase_percent: thresholds.cpmIncreasePercent }
      : {}),
    ...(thresholds.minBudgetDays !== undefined ? { min_budget_days: thresholds.minBudgetDays } : {}),
  };
  return Object.keys(saved).length > 0 ? saved : undefined;
}

export function thresholdsOfSaved(saved: SavedThresholds | undefined): PlanThresholds | undefined {
  if (saved === undefined) return undefined;
  return {
    ...(saved.budget_increase_percent !== undefined
      ? { budgetIncreasePercent: saved.budget_increase_percent }
      : {}),
    ...(saved.cpm_increase_percent !== undefined ? { cpmIncreasePercent: saved.cpm_increase_percent } : {}),
    ...(saved.min_budget_days !== undefined ? { minBudgetDays: saved.min_budget_days } : {}),
  };
}
