/**
 * Desired + live -> the closed union of changes (in plan order, ids c1, c2, ...) and the
 * per-object work the scheduler turns into requests. Pure; indexes everything by id in Maps
 * so that 10,000 campaigns plan in linear time.
 */
import type { DesiredCampaign, DesiredInsertionOrder, DesiredState } from "../model/desired.js";
import type { RecordedPause } from "../model/recovery.js";
import { Targeting, type TargetingOptionSet } from "../model/targeting.js";
import type { Campaign, CampaignCreate, InsertionOrder } from "../model/wire.js";
import { campaignKey } from "./changed.js";
import { createFields, diffCampaign, diffInsertionOrder } from "./compare.js";
import { associationChanges, type CreativeLedger, creativeWork } from "./creatives.js";
import { finding } from "./findings.js";
import { campaignAddress, matchCampaigns } from "./identity.js";
import { splitInsertionOrderPatch } from "./ioPatch.js";
import type { LiveIndex } from "./live-index.js";
import { Placeholder } from "./placeholder.js";
import { reactivation, recoveryOf } from "./recovered.js";
import { changedDeactivation, nearDuplicateNames, removalFindings } from "./removals.js";
import { resolveScope } from "./scope.js";
import type { CampaignRef, Change, ChangedScope, Finding, LiveState } from "./types.js";
import {
  type CampaignWork,
  type Context,
  type CreativeWork,
  emptyWork,
  type InsertionOrderWork,
  liveRef,
  liveWork,
} from "./work.js";

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

const CREATE_REQUIRED = ["start_time", "end_time", "budget_impressions", "cpm"] as const;

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
  for (const target of scope.unknown) {
    ctx.findings.push(
      finding(
        "DOOH009",
        "error",
        `--target ${target} is no insertion order, campaign or creative of the config: check the id`,
      ),
    );
  }
  for (const target of scope.unmanaged) {
    ctx.findings.push(
      finding(
        "DOOH009",
        "error",
        `--target ${target.id} is campaign "${target.name}" of insertion order ${target.insertionOrderId}, which the config does not manage: declare it under that insertion order (or set unmanaged_campaigns: deactivate) to plan it`,
      ),
    );
  }
  const ledger: CreativeLedger = new Map();
  const ioWorks: InsertionOrderWork[] = [];
  const campaignWorks: CampaignWork[] = [];
  const normalizedLiveTargetings = new Map<string, TargetingOptionSet[]>();

  for (const io of desired.insertionOrders) {
    const liveIo = index.insertionOrders.get(io.id);
    const ioCampaigns = index.campaignsOf(io.id);
    const whole = scope.all || scope.insertionOrders.has(io.id);
    const touched = scope.changed?.touched.has(io.id) ?? false;
    if (!whole && !touched && !ioCampaigns.some((c) => scope.campaigns.has(c.id))) continue;
    if (!liveIo) {
      ctx.findings.push(
        finding(
          "DOOH001",
          "error",
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
    ctx.findings.push(...identity.findings);
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
        const work = entry && match.live && reactivation(ctx, match.live, entry, match.desired.fields.active);
        if (work) campaignWorks.push(work);
        continue;
      }
      if (match.status === "new") ctx.findings.push(...nearDuplicateNames(io.id, match.desired, ioCampaigns));
      const work = match.live
        ? campaignUpdate(ctx, {
            io,
            desired: match.desired,
            live: match.live,
            state: live,
            normalizedLive: normalizedLiveTargetings,
            recorded: entry,
          })
        : campaignCreate(ctx, io, match.desired);
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
    if (scope.changed) ctx.findings.push(...removalFindings(scope.changed.scope, io, identity.unmanaged));
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
  const fields = diffInsertionOrder(io.fields, live, io.fieldSources);
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

function campaignCreate(
  ctx: Context,
  io: DesiredInsertionOrder,
  desired: DesiredCampaign,
): CampaignWork | undefined {
  const address = campaignAddress(io.id, desired.name);
  const missing = CREATE_REQUIRED.filter((field) => desired.fields[field] === undefined);
  if (missing.length > 0) {
    ctx.findings.push(
      finding(
        "DOOH006",
        "error",
        `campaign "${desired.name}" does not exist in insertion order ${io.id}, so it would be created, and creation needs ${missing.join(", ")} (see docs/assumptions.md#g3): declare them, or pin the live campaign with id`,
        { address, source: desired.source },
      ),
    );
    return undefined;
  }
  const f = desired.fields;
  const changeId = ctx.nextId();
  const item: CampaignCreate = {
    insertion_order_id: io.id,
    name: desired.name,
    start_time: f.start_time!,
    end_time: f.end_time!,
    budget_impressions: f.budget_impressions!,
    cpm: f.cpm!,
    ...(f.pacing !== undefined ? { pacing: f.pacing } : {}),
    // I2: a new campaign is created inactive and activated in phase 6, once its
    // targetings and creatives are in place.
    active: false,
  };
  const key = Placeholder.make(changeId);
  const work = emptyWork(key, io.id, desired.name);
  work.create = { changeId, item };
  work.finalActive = f.active === true;
  work.activate = work.finalActive;
  if (work.activate) work.activateChangeIds.push(changeId);
  work.budgetAfter = item.budget_impressions;
  const campaign: CampaignRef = { insertion_order_id: io.id, name: desired.name, create_change_id: changeId };
  ctx.changes.push({
    kind: "create_campaign",
    id: changeId,
    address,
    source: desired.source,
    campaign,
    fields: createFields(desired.fields, desired.fieldSources),
  });
  if (desired.targetings !== undefined && desired.targetings.length > 0) {
    const targetingsId = ctx.nextId();
    const after = Targeting.normalizeList(desired.targetings);
    ctx.changes.push({
      kind: "replace_targetings",
      id: targetingsId,
      address,
      source: desired.fieldSources.targetings ?? desired.source,
      campaign,
      before: [],
      after,
      added: after,
      removed: [],
      pause: false,
    });
    work.targetings = { changeId: targetingsId, body: after };
  }
  return work;
}

function campaignUpdate(
  ctx: Context,
  input: {
    io: DesiredInsertionOrder;
    desired: DesiredCampaign;
    live: Campaign;
    state: LiveState;
    normalizedLive: Map<string, TargetingOptionSet[]>;
    recorded: RecordedPause | undefined;
  },
): CampaignWork {
  const { io, desired, live, state, normalizedLive } = input;
  const address = campaignAddress(io.id, desired.name);
  const campaign: CampaignRef = { insertion_order_id: io.id, name: desired.name, campaign_id: live.id };
  const work = emptyWork(live.id, io.id, desired.name);
  const reactivate = recoveryOf(ctx, input.recorded, live, desired.fields.active);
  work.liveActive = live.active;
  work.finalActive = desired.fields.active ?? (live.active || reactivate);
  work.budgetBefore = live.budget_impressions;
  work.budgetAfter = desired.fields.budget_impressions ?? live.budget_impressions;
  const fields = diffCampaign(desired.fields, live, desired.fieldSources);
  if (reactivate && !fields.some((f) => f.field === "active")) {
    fields.push({ field: "active", before: false, after: true });
  }
  if (fields.length > 0) {
    const id = ctx.nextId();
    ctx.changes.push({ kind: "update_campaign", id, address, source: desired.source, campaign, fields });
    for (const field of fields) {
      if (field.field === "active") continue;
      (work.patch as Record<string, unknown>)[field.field] = desired.fields[field.field as "cpm"];
    }
    if (Object.keys(work.patch).length > 0) work.patchChangeIds.push(id);
    if (live.active && !work.finalActive) {
      work.deactivate = true;
      if (!work.patchChangeIds.includes(id)) work.patchChangeIds.push(id);
    }
    if (!live.active && work.finalActive) {
      work.activate = true;
      work.activateChangeIds.push(id);
    }
  }
  if (desired.targetings !== undefined) {
    const before = state.targetings[live.id];
    if (before === undefined) {
      throw new Error(`internal: targetings of campaign ${live.id} were not read; the reader must read them`);
    }
    const was = Targeting.keyed(before);
    normalizedLive.set(live.id, was.sets);
    const want = Targeting.keyed(desired.targetings);
    if (!Targeting.keyedEquals(was, want)) {
      const { added, removed } = Targeting.keyedDifference(was, want);
      // G5/I1: an active campaign cannot lose or change an option set; additions alone are fine.
      const pause = live.active && work.finalActive && removed.length > 0;
      const id = ctx.nextId();
      const after = want.sets;
      ctx.changes.push({
        kind: "replace_targetings",
        id,
        address,
        source: desired.fieldSources.targetings ?? desired.source,
        campaign,
        before: was.sets,
        after,
        added,
        removed,
        pause,
      });
      work.targetings = { changeId: id, body: after };
      if (pause) {
        work.pause = true;
        work.deactivate = true;
        work.activate = true;
        work.patchChangeIds.push(id);
        work.activateChangeIds.unshift(id);
      }
    }
  }
  return work;
}

function unmanagedDeactivation(ctx: Context, live: Campaign): CampaignWork {
  const id = ctx.nextId();
  ctx.changes.push({
    kind: "deactivate_campaign",
    id,
    address: campaignAddress(live.insertion_order_id, live.name),
    campaign: liveRef(live),
    reason: "unmanaged",
  });
  const work = liveWork(live);
  work.liveActive = true;
  work.deactivate = true;
  work.patchChangeIds.push(id);
  return work;
}
