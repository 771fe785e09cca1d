/** `--target ID`: the config's insertion orders, live campaigns and creatives a plan covers. */
import type { DesiredState } from "../../model/desired.js";
import type { Campaign } from "../../model/wire.js";
import { finding } from "../finding-catalogue.js";
import type { ChangedScope, Finding } from "../types.js";
import { campaignKey, touchedInsertionOrders } from "./changed.js";

export interface Scope {
  /** True without `--target`: everything the config declares. */
  all: boolean;
  insertionOrders: Set<string>;
  campaigns: Set<string>;
  creatives: Set<string>;
  /** Targets that name nothing the config manages. */
  unknown: string[];
  /** Targets that name a live campaign of a managed insertion order the config does not manage. */
  unmanaged: { id: string; insertionOrderId: string; name: string }[];
  /** `--changed-since`: the changed objects, by identity (a campaign matched by name has no id). */
  changed?: {
    scope: ChangedScope;
    /** Insertion orders whose own fields are planned. */
    insertionOrders: Set<string>;
    /** Insertion orders read and walked: changed ones and those of changed or removed campaigns. */
    touched: Set<string>;
    /** `campaignKey(insertion order, name)` of campaigns added or changed. */
    campaigns: Set<string>;
  };
}

/** A live campaign is managed when the config declares it (by id or name) or deactivates the rest. */
function managedCampaigns(desired: DesiredState): (campaign: Campaign) => boolean {
  const byIo = new Map(
    desired.insertionOrders.map((io) => [
      io.id,
      {
        deactivate: io.unmanagedCampaigns === "deactivate",
        ids: new Set(io.campaigns.flatMap((c) => (c.id === undefined ? [] : [c.id]))),
        names: new Set(io.campaigns.filter((c) => c.id === undefined).map((c) => c.name)),
      },
    ]),
  );
  return (campaign) => {
    const io = byIo.get(campaign.insertion_order_id);
    return io !== undefined && (io.deactivate || io.ids.has(campaign.id) || io.names.has(campaign.name));
  };
}

export function resolveScope(
  desired: DesiredState,
  targets: readonly string[] | undefined,
  campaignsById: ReadonlyMap<string, Campaign>,
  changed?: ChangedScope,
): Scope {
  if (changed) return changedScope(changed);
  const scope: Scope = {
    all: targets === undefined || targets.length === 0,
    insertionOrders: new Set(),
    campaigns: new Set(),
    creatives: new Set(),
    unknown: [],
    unmanaged: [],
  };
  if (scope.all) return scope;
  const ioIds = new Set(desired.insertionOrders.map((io) => io.id));
  const creativeIds = new Set(desired.creatives.map((c) => c.id));
  const managed = managedCampaigns(desired);
  for (const target of targets ?? []) {
    const campaign = campaignsById.get(target);
    if (ioIds.has(target)) scope.insertionOrders.add(target);
    else if (campaign && ioIds.has(campaign.insertion_order_id)) {
      if (managed(campaign)) scope.campaigns.add(target);
      else
        scope.unmanaged.push({
          id: target,
          insertionOrderId: campaign.insertion_order_id,
          name: campaign.name,
        });
    } else if (creativeIds.has(target)) scope.creatives.add(target);
    else scope.unknown.push(target);
  }
  return scope;
}

function changedScope(changed: ChangedScope): Scope {
  return {
    all: false,
    insertionOrders: new Set(),
    campaigns: new Set(),
    creatives: new Set(changed.creatives),
    unknown: [],
    unmanaged: [],
    changed: {
      scope: changed,
      insertionOrders: new Set(changed.insertion_orders),
      touched: touchedInsertionOrders(changed),
      campaigns: new Set(changed.campaigns.map((c) => campaignKey(c.insertion_order_id, c.name))),
    },
  };
}

/** DOOH009: a `--target` that names nothing the config manages. */
export function targetFindings(scope: Scope): Finding[] {
  return [
    ...scope.unknown.map((target) =>
      finding(
        "DOOH009",
        `--target ${target} is no insertion order, campaign or creative of the config: check the id`,
      ),
    ),
    ...scope.unmanaged.map((target) =>
      finding(
        "DOOH009",
        `--target ${target.id} is campaign "${target.name}" of insertion order ${target.insertionOrderId}, which the config does not manage: declare it under that insertion order (or set unmanaged_campaigns: deactivate) to plan it`,
      ),
    ),
  ];
}
