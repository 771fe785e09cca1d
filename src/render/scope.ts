/** The banner every rendering of a `--changed-since` plan carries: what it covers and what it did not read. */

import { count } from "../model/plural.js";
import { printable } from "../model/printable.js";
import type { Plan } from "../plan/types.js";

/** One sentence, or undefined for a plan of the whole config. */
export function scopeBanner(plan: Plan): string | undefined {
  const scope = plan.scope;
  if (!scope) return undefined;
  const covered = [
    scope.insertion_orders.length > 0
      ? count(scope.insertion_orders.length, "insertion order", "insertion orders")
      : "",
    scope.campaigns.length > 0 ? count(scope.campaigns.length, "campaign", "campaigns") : "",
    scope.removed_campaigns.length > 0
      ? count(scope.removed_campaigns.length, "removed campaign", "removed campaigns")
      : "",
    scope.creatives.length > 0 ? count(scope.creatives.length, "creative", "creatives") : "",
  ].filter((part) => part !== "");
  return (
    `scoped to changes since ${printable(scope.since)} (${scope.commit.slice(0, 12)}): ` +
    `${covered.length > 0 ? covered.join(", ") : "nothing"} changed; ` +
    `${count(scope.not_refreshed, "declared object", "declared objects")} not refreshed, so drift elsewhere is not shown`
  );
}
