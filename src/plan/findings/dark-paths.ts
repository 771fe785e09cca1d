/**
 * Every way a plan stops an active campaign in flight (G2 `in_flight`; docs/plan.md, "Dark
 * paths"): deactivation, an end at or before now, no creative that can serve, a budget at or
 * below delivery. `no_deactivation_in_flight` (DOOH905) counts each.
 */
import { canServe } from "../../model/creative-serving.js";
import type { SourceRef } from "../../model/desired.js";
import { grouped } from "../../model/plural.js";
import { Time } from "../../model/time.js";
import type { Campaign } from "../../model/wire.js";
import { deactivates } from "../changes/changes.js";
import { finding } from "../finding-catalogue.js";
import type { LiveIndex } from "../live-index.js";
import type { Change, Finding } from "../types.js";

export type DarkPathKind = "deactivation" | "end" | "no creative" | "budget";

export interface DarkPath {
  kind: DarkPathKind;
  campaign: Campaign;
  /** The changes that stop it, and the address and source of the first. */
  change_ids: string[];
  address?: string;
  source?: SourceRef;
  /** What stops delivery, for a message: `moves end_time to ... (at or before now)`. */
  reason: string;
}

function locate(change: Change, source: SourceRef | undefined) {
  return {
    ...(change.address !== undefined ? { address: change.address } : {}),
    ...((source ?? change.source) ? { source: (source ?? change.source)! } : {}),
  };
}

function campaignId(change: Change): string | undefined {
  return change.kind === "update_insertion_order" || change.kind === "update_creative"
    ? undefined
    : change.campaign.campaign_id;
}

/** The paths through a campaign's own update: deactivation, end, budget. */
function ownPaths(change: Change, live: Campaign, now: number): DarkPath[] {
  const base = { campaign: live, change_ids: [change.id] };
  // A boolean, not the type guard: an update_campaign that does not deactivate stays one.
  const off: boolean = [change].some(deactivates);
  if (off || change.kind !== "update_campaign") {
    return off
      ? [{ kind: "deactivation", ...base, ...locate(change, undefined), reason: "deactivates it" }]
      : [];
  }
  const out: DarkPath[] = [];
  const end = change.fields.find((f) => f.field === "end_time");
  if (end && typeof end.after === "string" && Time.toMillis(end.after) <= now) {
    out.push({
      kind: "end",
      ...base,
      ...locate(change, end.source),
      reason: `moves end_time to ${end.after}, at or before now`,
    });
  }
  const budget = change.fields.find((f) => f.field === "budget_impressions");
  const delivered = live.progress?.impressions_delivered;
  if (budget && typeof budget.after === "number" && delivered !== undefined && budget.after <= delivered) {
    out.push({
      kind: "budget",
      ...base,
      ...locate(change, budget.source),
      reason: `sets budget_impressions to ${grouped(budget.after)}, at or below the ${grouped(delivered)} it has delivered`,
    });
  }
  return out;
}

/** No creative left that can serve where one could: judged where the plan read them (read.ts). */
function creativePath(input: {
  campaign: Campaign;
  changes: readonly Change[];
  live: LiveIndex;
}): DarkPath | undefined {
  const { campaign, changes, live } = input;
  const before = live.creativesOf(campaign.id);
  if (!before.some(canServe)) return undefined;
  const removed = changes.filter((c) => c.kind === "dissociate_creative");
  const added = changes.filter((c) => c.kind === "associate_creative");
  const gone = new Set(removed.map((c) => (c.kind === "dissociate_creative" ? c.creative_id : "")));
  const after = [
    ...before.filter((c) => !gone.has(c.id)),
    ...added.flatMap((c) => {
      const creative = c.kind === "associate_creative" ? live.creatives.get(c.creative_id) : undefined;
      return creative ? [creative] : [];
    }),
  ];
  if (after.some(canServe) || removed.length === 0) return undefined;
  const first = removed[0]!;
  return {
    kind: "no creative",
    campaign,
    change_ids: removed.map((c) => c.id),
    ...locate(first, undefined),
    reason:
      after.length === 0
        ? "removes its last creative"
        : `leaves it no creative that can serve (${after.map((c) => c.id).join(", ")} cannot)`,
  };
}

/** The dark paths of a plan, campaign by campaign in the order their changes come. */
export function darkPaths(input: { changes: readonly Change[]; live: LiveIndex; now: string }): DarkPath[] {
  const now = Time.toMillis(input.now);
  const byCampaign = new Map<string, Change[]>();
  for (const change of input.changes) {
    const id = campaignId(change);
    if (id === undefined) continue;
    const list = byCampaign.get(id);
    if (list) list.push(change);
    else byCampaign.set(id, [change]);
  }
  return [...byCampaign].flatMap(([id, changes]) => {
    const campaign = input.live.campaigns.get(id);
    if (!campaign?.active || !campaign.in_flight) return [];
    const own = changes.flatMap((c) => ownPaths(c, campaign, now));
    const creatives = creativePath({ campaign, changes, live: input.live });
    return creatives ? [...own, creatives] : own;
  });
}

/** DOOH102: the dark paths no other code names (no creative that can serve, a budget at delivery). */
export function silentDarkPaths(input: {
  changes: readonly Change[];
  live: LiveIndex;
  now: string;
}): Finding[] {
  return darkPaths(input).flatMap((path) => {
    const delivered = path.campaign.progress?.impressions_delivered;
    const change = input.changes.find((c) => c.id === path.change_ids[0]);
    const budget =
      change?.kind === "update_campaign"
        ? change.fields.find((f) => f.field === "budget_impressions")?.after
        : undefined;
    const silent = path.kind === "no creative" || (path.kind === "budget" && budget === delivered);
    if (!silent) return [];
    return [
      finding(
        "DOOH102",
        `stops delivery of campaign ${path.campaign.id} "${path.campaign.name}", in flight now, without deactivating it: ${path.reason}`,
        {
          ...(path.address !== undefined ? { address: path.address } : {}),
          change_ids: path.change_ids,
          source: path.source,
        },
      ),
    ];
  });
}
