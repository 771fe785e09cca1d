/** The banner of every `--changed-since` plan: what it covers and what it did not read. */

import { count } from "../model/plural.js";
import { printable } from "../model/printable.js";
import type { Plan } from "../plan/types.js";

/** One sentence, or undefined for a plan of the whole config. */
export function scopeBanner(plan: Plan): string | undefined {
  const scope = plan.scope;
  if (!scope) return undefined;
  const parts = [
    [scope.insertion_orders.length, "insertion order"],
    [scope.campaigns.length, "campaign"],
    [scope.removed_campaigns.length, "removed campaign"],
    [scope.creatives.length, "creative"],
  ] as const;
  const covered = parts.flatMap(([n, noun]) => (n > 0 ? [count(n, noun)] : []));
  return (
    `scoped to changes since ${printable(scope.since)} (${scope.commit.slice(0, 12)}): ` +
    `${covered.length > 0 ? covered.join(", ") : "nothing"} changed; ` +
    `${count(scope.not_refreshed, "declared object")} not refreshed, so drift elsewhere is not shown`
  );
}
