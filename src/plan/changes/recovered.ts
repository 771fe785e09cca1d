/**
 * The recovery record in a plan (ARCHITECTURE.md#recovery-record): what an earlier apply paused
 * and left is reactivated, unless declared inactive or its apply still runs.
 */
import type { DesiredState } from "../../model/desired.js";
import type { RecordedPause, RecordIssue } from "../../model/recovery.js";
import type { Campaign } from "../../model/wire.js";
import { finding } from "../finding-catalogue.js";
import { LiveIndex } from "../live-index.js";
import type { Finding } from "../types.js";
import { campaignAddress, matchCampaigns } from "./identity.js";
import { type CampaignWork, type Context, liveRef, liveWork } from "./work.js";

/** The record's verdict on a live campaign: reactivate it, or leave it (to its running apply). */
export function recoveryOf(
  ctx: Context,
  entry: RecordedPause | undefined,
  live: Campaign,
  declaredActive: boolean | undefined,
): boolean {
  if (!entry || live.active || declaredActive === false) return false;
  const address = campaignAddress(live.insertion_order_id, live.name);
  if (entry.owner_running) {
    ctx.findings.push(
      finding(
        "DOOH203",
        `campaign ${live.id} "${live.name}" is paused by apply ${entry.apply_id}, which is still running${entry.holder ? ` (host ${entry.holder.host || "unnamed"}, pid ${entry.holder.pid}; its lease expires at ${entry.holder.lease_expires_at} unless renewed)` : ""} and will reactivate it: plan again once it has finished (apply waits for it)`,
        { address },
      ),
    );
    return false;
  }
  ctx.findings.push(
    finding(
      "DOOH202",
      `reactivates campaign ${live.id} "${live.name}": apply ${entry.apply_id} (started ${entry.apply_started_at}) paused it at ${entry.paused_at} for a targeting change and stopped before reactivating it`,
      { address },
    ),
  );
  return true;
}

/** A recorded campaign undeclared or out of scope: only its reactivation, if any, is planned. */
export function reactivation(
  ctx: Context,
  live: Campaign,
  entry: RecordedPause,
  declaredActive: boolean | undefined,
): CampaignWork | undefined {
  if (!recoveryOf(ctx, entry, live, declaredActive)) return undefined;
  return activationOnly(ctx, live);
}

/** Only the campaign's activation: one `active: true` change and the work that carries it. */
function activationOnly(ctx: Context, live: Campaign): CampaignWork {
  const id = ctx.nextId();
  ctx.changes.push({
    kind: "update_campaign",
    id,
    address: campaignAddress(live.insertion_order_id, live.name),
    campaign: liveRef(live),
    fields: [{ field: "active", before: false, after: true }],
  });
  const work = liveWork(live);
  work.finalActive = true;
  work.activate = true;
  work.activateChangeIds.push(id);
  return work;
}

/**
 * State-free restoration (docs/safety.md, Recovery record): a campaign declared `active: true`,
 * inactive and in flight, is reactivated by every plan, whatever its scope (DOOH202 or DOOH208).
 */
export function restoration(
  ctx: Context,
  live: Campaign,
  entry: RecordedPause | undefined,
  declaredActive: boolean | undefined,
): CampaignWork | undefined {
  if (entry) return reactivation(ctx, live, entry, declaredActive);
  if (declaredActive !== true || live.active || !live.in_flight) return undefined;
  const address = campaignAddress(live.insertion_order_id, live.name);
  ctx.findings.push(
    finding(
      "DOOH208",
      `reactivates campaign ${live.id} "${live.name}": the config declares it active, it is in flight and inactive (outside the plan's scope, only its activation is planned)`,
      { address },
    ),
  );
  return activationOnly(ctx, live);
}

/**
 * The entries a plan may obey: of a declared insertion order, and found under it. Others are
 * reported, left alone: a planted or stale record must not reactivate what its owner paused.
 */
export function obeyedEntries(
  desired: DesiredState,
  campaigns: readonly Campaign[],
  entries: readonly RecordedPause[],
): { obeyed: RecordedPause[]; issues: RecordIssue[] } {
  const declared = new Set(desired.insertionOrders.map((io) => io.id));
  const live = new Map(campaigns.map((c) => [c.id, c]));
  const obeyed: RecordedPause[] = [];
  const issues: RecordIssue[] = [];
  for (const e of entries) {
    const where = live.get(e.campaign_id)?.insertion_order_id ?? e.insertion_order_id;
    if (declared.has(e.insertion_order_id) && where === e.insertion_order_id) obeyed.push(e);
    else {
      issues.push({
        path: e.path ?? "the recovery record",
        kind: "foreign",
        reason: `its campaign ${e.campaign_id} "${e.name}" is ${where === e.insertion_order_id ? "" : `under insertion order ${where}, not ${e.insertion_order_id}, and `}not of an insertion order this config declares: never obeyed, left on disk`,
      });
    }
  }
  return { obeyed, issues };
}

/** Record files and entries the plan does not act on, as findings (DOOH205, DOOH206). */
export function recordFindings(issues: readonly RecordIssue[]): Finding[] {
  return issues.map((issue) =>
    issue.kind === "unreadable"
      ? finding(
          "DOOH206",
          `recovery record ${issue.path} cannot be read (${issue.reason}): campaigns an earlier apply paused may still be paused, and no plan can tell which; check them with \`doohctl status --all\`, set them active in the config or the DSP, then remove the file (or its bad entry)`,
        )
      : finding("DOOH205", `recovery record ${issue.path}: ${issue.reason}`),
  );
}

/** What settling the recovery record does with each entry (`doohctl apply --restore-only`). */
export interface Settlement {
  /** Inactive, their apply stopped, not declared inactive: a plain apply reactivates them (DOOH202). */
  reactivate: RecordedPause[];
  /** Declared inactive (`active: false`, or `unmanaged_campaigns: deactivate`): left inactive, entry dropped. */
  declaredInactive: RecordedPause[];
  /** Active again, or gone: nothing to do, entry dropped. */
  done: RecordedPause[];
  /** Paused by an apply still running (DOOH203): its own to reactivate, left alone. */
  held: RecordedPause[];
}

/** The verdict on each obeyed entry as build.ts gives it, from the recorded campaigns alone. */
export function settlementOf(
  desired: DesiredState,
  campaigns: readonly Campaign[],
  entries: readonly RecordedPause[],
): Settlement {
  const index = LiveIndex.of({ insertionOrders: [], campaigns: [...campaigns], creatives: [] });
  const declaredActive = new Map<string, boolean | undefined>();
  for (const io of desired.insertionOrders) {
    for (const match of matchCampaigns(io, index).matches) {
      if (match.live) declaredActive.set(match.live.id, match.desired.fields.active);
    }
  }
  const deactivating = new Set(
    desired.insertionOrders.filter((io) => io.unmanagedCampaigns === "deactivate").map((io) => io.id),
  );
  const out: Settlement = { reactivate: [], declaredInactive: [], done: [], held: [] };
  // As build.ts: the oldest entry of a campaign decides (a running apply's, if it is that one).
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.campaign_id)) continue;
    seen.add(e.campaign_id);
    const live = index.campaigns.get(e.campaign_id);
    const declared = declaredActive.has(e.campaign_id)
      ? declaredActive.get(e.campaign_id)
      : deactivating.has(e.insertion_order_id)
        ? false
        : undefined;
    if (!live || live.active) out.done.push(e);
    else if (e.owner_running) out.held.push(e);
    else if (declared === false) out.declaredInactive.push(e);
    else out.reactivate.push(e);
  }
  return out;
}
