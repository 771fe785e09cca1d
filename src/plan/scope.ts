/**
 * `--target ID`: which insertion orders, campaigns and creatives of the config a plan covers.
 * An id names an insertion order of the config, a live campaign (pinned or matched by name),
 * or a creative of the config's `creatives:` list.
 */
import type { DesiredState } from "../model/desired.js";
import type { Campaign } from "../model/wire.js";

export interface Scope {
  /** True without `--target`: everything the config declares. */
  all: boolean;
  insertionOrders: Set<string>;
  campaigns: Set<string>;
  creatives: Set<string>;
  /** Targets that name nothing the config manages. */
  unknown: string[];
}

export function resolveScope(
  desired: DesiredState,
  targets: readonly string[] | undefined,
  campaignsById: ReadonlyMap<string, Campaign>,
): Scope {
  const scope: Scope = {
    all: targets === undefined || targets.length === 0,
    insertionOrders: new Set(),
    campaigns: new Set(),
    creatives: new Set(),
    unknown: [],
  };
  if (scope.all) return scope;
  const ioIds = new Set(desired.insertionOrders.map((io) => io.id));
  const creativeIds = new Set(desired.creatives.map((c) => c.id));
  for (const target of targets ?? []) {
    if (ioIds.has(target)) scope.insertionOrders.add(target);
    else if (ioIds.has(campaignsById.get(target)?.insertion_order_id ?? "")) scope.campaigns.add(target);
    else if (creativeIds.has(target)) scope.creatives.add(target);
    else scope.unknown.push(target);
  }
  return scope;
}
