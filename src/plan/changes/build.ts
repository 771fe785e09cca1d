/**
 * Desired + live -> the changes (ids c1, c2, ... in plan order) and each object's work, walking
 * the config in order; what it cannot build, or the recovery record makes it do, it reports as
 * findings (ARCHITECTURE.md#the-plans-stages).
 */
import { append } from "../../model/append.js";
import type { DesiredInsertionOrder, DesiredState } from "../../model/desired.js";
import type { RecordedPause, RecordIssue } from "../../model/recovery.js";
import { INSERTION_ORDER_FIELDS } from "../../model/resource-fields.js";
import type { TargetingOptionSet } from "../../model/targeting.js";
import type { InsertionOrder } from "../../model/wire.js";
import { finding } from "../finding-catalogue.js";
import type { LiveIndex } from "../live-index.js";
import type { CampaignRef, Change, ChangedScope, Finding, LiveState } from "../types.js";
import { campaignCreation } from "./campaign-creation.js";
import { campaignUpdate, unmanagedDeactivation } from "./campaign-update.js";
import { campaignKey } from "./changed.js";
import { diffFields } from "./compare.js";
import { associationChanges, type CreativeLedger, creativeWork } from "./creatives.js";
import { matchCampaigns } from "./identity.js";
import { splitInsertionOrderPatch } from "./io-patch.js";
import { reactivation, recordFindings, restoration } from "./recovered.js";
import { adoptedByName, changedDeactivation, nearDuplicateNames, removalFindings } from "./removals.js";
import { resolveScope, targetFindings } from "./scope.js";
import type { CampaignWork, Context, CreativeWork, InsertionOrderWork } from "./work.js";

export interface Built {
  changes: Change[];
  findings: Finding[];
  insertionOrders: InsertionOrderWork[];
  campaigns: CampaignWork[];
  creatives: CreativeWork[];
  /** The live state the changes were built from, indexed (the scheduler sizes budgets with it). */
  index: LiveIndex;
  /** Live campaign id -> its targetings normalized, for those compared: fingerprints reuse them. */
  normalizedLiveTargetings: Map<string, TargetingOptionSet[]>;
}

export interface BuildInput {
  desired: DesiredState;
  live: LiveState;
  /** `live`, indexed once for the whole plan. */
  index: LiveIndex;
  /** `--target` ids. */
  targets?: readonly string[] | undefined;
  /** `--changed-since`. */
  changed?: ChangedScope | undefined;
  /** The recovery record. */
  recordedPauses?: readonly RecordedPause[] | undefined;
  /** Its files and entries not acted on (DOOH205, DOOH206). */
  recordIssues?: readonly RecordIssue[] | undefined;
}

export function buildChanges(input: BuildInput): Built {
  const { desired, live, index } = input;
  let counter = 0;
  const ctx: Context = { changes: [], findings: [], nextId: () => `c${++counter}` };
  const scope = resolveScope(desired, input.targets, index.campaigns, input.changed);
  // Recovery record: the oldest entry of a campaign says best since when it is dark.
  const recorded = new Map<string, RecordedPause>();
  for (const entry of input.recordedPauses ?? [])
    if (!recorded.has(entry.campaign_id)) recorded.set(entry.campaign_id, entry);
  const declared = new Set<string>();
  append(ctx.findings, targetFindings(scope));
  const ledger: CreativeLedger = new Map();
  const ioWorks: InsertionOrderWork[] = [];
  const campaignWorks: CampaignWork[] = [];
  const normalizedLiveTargetings = new Map<string, TargetingOptionSet[]>();

  for (const io of desired.insertionOrders) {
    const liveIo = index.insertionOrders.get(io.id);
    const ioCampaigns = index.campaignsOf(io.id);
    const whole = scope.all || scope.insertionOrders.has(io.id);
    const touched = scope.changed?.touched.has(io.id) ?? false;
    if (!whole && !touched && !ioCampaigns.some((c) => scope.campaigns.has(c.id))) {
      // Outside the scope: only campaigns declared active are restored (read.ts reads them).
      for (const match of matchCampaigns(io, index).matches) {
        if (!match.live) continue;
        declared.add(match.live.id);
        const work = restoration(ctx, match.live, recorded.get(match.live.id), match.desired.fields.active);
        if (work) campaignWorks.push(work);
      }
      continue;
    }
    if (!liveIo) {
      ctx.findings.push(
        finding(
          "DOOH001",
          `insertion order ${io.id} does not exist; doohctl adopts existing insertion orders and cannot create one (see docs/assumptions.md#g1): check the id`,
          { address: `insertion_order.${io.id}`, source: io.fieldSources.contract_number ?? io.source },
        ),
      );
      continue;
    }
    if (whole || scope.changed?.insertionOrders.has(io.id)) {
      const work = insertionOrderChange(ctx, io, liveIo);
      if (work) ioWorks.push(work);
    }
    const identity = matchCampaigns(io, index);
    append(ctx.findings, identity.findings);
    for (const match of identity.matches) {
      if (match.live) declared.add(match.live.id);
      if (match.status === "error") continue;
      const entry = match.live && recorded.get(match.live.id);
      const inScope =
        whole ||
        (match.live !== undefined && scope.campaigns.has(match.live.id)) ||
        scope.changed?.campaigns.has(campaignKey(io.id, match.desired.name)) === true;
      if (!inScope) {
        // A campaign an earlier apply left dark is reactivated whatever the scope (delivery
        // first), but nothing else of it changes: its other edits are outside --target.
        const work = match.live && restoration(ctx, match.live, entry, match.desired.fields.active);
        if (work) campaignWorks.push(work);
        continue;
      }
      if (match.status === "new") append(ctx.findings, nearDuplicateNames(io.id, match.desired, ioCampaigns));
      else if (match.live && scope.changed)
        append(ctx.findings, adoptedByName(scope.changed.scope, io.id, match.desired, match.live));
      const work = match.live
        ? campaignUpdate(ctx, {
            io,
            desired: match.desired,
            live: match.live,
            state: live,
            normalizedLive: normalizedLiveTargetings,
            recorded: entry,
          })
        : campaignCreation(ctx, io, match.desired);
      if (!work) continue;
      campaignWorks.push(work);
      if (match.desired.creatives !== undefined) {
        associationChanges(ctx, {
          ledger,
          io: liveIo,
          desired: match.desired,
          ref: refOf(io.id, match.desired.name, work),
          campaignKey: work.key,
          live: index,
          advertisers: live.advertisers,
        });
      }
    }
    if (io.unmanagedCampaigns === "deactivate") {
      for (const campaign of identity.unmanaged) {
        // A targeted campaign of the order is in scope too: --target names what to deactivate.
        const inScope =
          whole || scope.campaigns.has(campaign.id) || changedDeactivation(scope, io.id, campaign);
        if (inScope && campaign.active) campaignWorks.push(unmanagedDeactivation(ctx, campaign));
      }
    }
    if (scope.changed) append(ctx.findings, removalFindings(scope.changed.scope, io, identity.unmanaged));
  }
  for (const entry of recorded.values()) {
    if (declared.has(entry.campaign_id)) continue;
    const campaign = index.campaigns.get(entry.campaign_id);
    const io = desired.insertionOrders.find((d) => d.id === campaign?.insertion_order_id);
    // `unmanaged_campaigns: deactivate` declares every campaign it does not list inactive.
    if (!campaign || campaign.active || io?.unmanagedCampaigns === "deactivate") continue;
    const work = reactivation(ctx, campaign, entry, undefined);
    if (work) campaignWorks.push(work);
  }
  const categories = live.creativeCategories && new Set(live.creativeCategories.map((c) => c.id));
  const creatives = creativeWork(ctx, { desired, scope, ledger, live: index, categories });
  append(ctx.findings, recordFindings(input.recordIssues ?? []));
  return {
    changes: ctx.changes,
    findings: ctx.findings,
    insertionOrders: ioWorks,
    campaigns: campaignWorks,
    creatives,
    index,
    normalizedLiveTargetings,
  };
}

function refOf(insertionOrderId: string, name: string, work: CampaignWork): CampaignRef {
  const ref: CampaignRef = { insertion_order_id: insertionOrderId, name };
  if (work.create) ref.create_change_id = work.create.changeId;
  else ref.campaign_id = work.key;
  return ref;
}

function insertionOrderChange(
  ctx: Context,
  io: DesiredInsertionOrder,
  live: InsertionOrder,
): InsertionOrderWork | undefined {
  const fields = diffFields(INSERTION_ORDER_FIELDS, io.fields, live, io.fieldSources);
  if (fields.length === 0) return undefined;
  const id = ctx.nextId();
  ctx.changes.push({
    kind: "update_insertion_order",
    id,
    address: `insertion_order.${io.id}`,
    source: io.source,
    insertion_order_id: io.id,
    fields,
  });
  return { id: io.id, changeId: id, ...splitInsertionOrderPatch(io.fields, live) };
}
