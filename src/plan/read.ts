/**
 * Reads the live state a plan needs, and nothing more, in the fewest requests: insertion orders
 * and their campaigns with progress; targetings and creatives only where the config declares
 * them (or the plan activates: DOOH501); categories a creative would gain (G6 rule 5); and the
 * advertisers, to name them (money table, G6 mismatch).
 */
import { readByValues } from "../api/paging.js";
import type { DspClient, SendOptions } from "../api/types.js";
import { append } from "../model/append.js";
import type { DesiredState } from "../model/desired.js";
import { sortedIds, type TargetingOptionSet } from "../model/targeting.js";
import type { Campaign, Creative, CreativeCategory } from "../model/wire.js";
import { campaignKey, touchedInsertionOrders } from "./changes/changed.js";
import { matchCampaigns } from "./changes/identity.js";
import { LiveIndex } from "./live-index.js";
import type { ChangedScope, LiveState } from "./types.js";

export interface ReadProgress {
  /** What is being read, e.g. `campaigns`. */
  step: "insertion orders" | "campaigns" | "targetings" | "creatives" | "creative categories" | "advertisers";
  /** Objects to read in this step (ids asked for, or insertion orders listed). */
  count: number;
  /** Read requests made so far. */
  requests: number;
}

export interface ReadOptions {
  /** `--target` ids: insertion orders, campaigns or creatives of the config. */
  targets?: readonly string[];
  /** `--changed-since`: read only what the changed objects need (and G8 the rest of their orders). */
  changed?: ChangedScope;
  onProgress?: (progress: ReadProgress) => void;
  signal?: AbortSignal;
  /** Campaigns of the recovery record: read wherever they are, as reactivated whatever `--target` says. */
  recordedCampaigns?: readonly string[];
}

export async function readLiveState(
  client: DspClient,
  desired: DesiredState,
  options: ReadOptions = {},
): Promise<LiveState> {
  const readsAtStart = client.stats().reads;
  const send = options.signal ? { signal: options.signal } : {};
  const progress = (step: ReadProgress["step"], count: number) =>
    options.onProgress?.({ step, count, requests: client.stats().reads - readsAtStart });
  const targets = options.targets ?? [];
  const changed = options.changed;
  const all = targets.length === 0 && changed === undefined;
  const configIos = new Map(desired.insertionOrders.map((io) => [io.id, io]));
  const changedCampaigns = new Set(changed?.campaigns.map((c) => campaignKey(c.insertion_order_id, c.name)));
  const changedCreatives = new Set(changed?.creatives);
  const creativeInScope = (id: string) => all || targets.includes(id) || changedCreatives.has(id);

  // Which insertion orders to read: targeted ones, those of targeted campaigns, and those a
  // changed object touches (all their campaigns are listed: G8's budget sum needs them).
  const ioIds = new Set<string>(all ? configIos.keys() : targets.filter((t) => configIos.has(t)));
  if (changed) for (const id of touchedInsertionOrders(changed)) if (configIos.has(id)) ioIds.add(id);
  const campaigns: Campaign[] = [];
  const pinnedIo = new Map<string, string>();
  for (const io of desired.insertionOrders) for (const c of io.campaigns) if (c.id) pinnedIo.set(c.id, io.id);
  const targetCampaigns = new Set<string>();
  const unknown: string[] = [];
  const configCreatives = new Set(desired.creatives.map((c) => c.id));
  for (const t of all ? [] : targets) {
    if (configIos.has(t) || configCreatives.has(t)) continue;
    targetCampaigns.add(t);
    const known = pinnedIo.get(t);
    if (known) ioIds.add(known);
    else unknown.push(t);
  }
  if (unknown.length > 0) {
    progress("campaigns", unknown.length);
    for (const c of await client.getCampaigns(unknown, send)) {
      if (configIos.has(c.insertion_order_id)) ioIds.add(c.insertion_order_id);
    }
  }

  progress("insertion orders", ioIds.size);
  const insertionOrders = ioIds.size > 0 ? await client.getInsertionOrders([...ioIds], send) : [];
  const foundIos = insertionOrders.map((io) => io.id);
  progress("campaigns", foundIos.length);
  // G2: progress rides on the same list requests; the delivery findings (DOOH302, DOOH303,
  // DOOH801, DOOH802) and the spend summary read it. Fingerprints never include it.
  if (foundIos.length > 0)
    campaigns.push(
      ...(await client.listCampaignsByInsertionOrder(foundIos, { ...send, includeProgress: true })),
    );

  // A pinned id not under its insertion order: read it to say where it is (DOOH003/DOOH004).
  const seen = new Set(campaigns.map((c) => c.id));
  const found = new Set(foundIos);
  const misplaced = [...pinnedIo].filter(([id, ioId]) => found.has(ioId) && !seen.has(id)).map(([id]) => id);
  if (misplaced.length > 0) append(campaigns, await client.getCampaigns(misplaced, send));

  const recorded = new Set(options.recordedCampaigns ?? []);
  const listed = new Set(campaigns.map((c) => c.id));
  const unread = [...recorded].filter((id) => !listed.has(id));
  if (unread.length > 0) append(campaigns, await client.getCampaigns(unread, send));

  // State-free restoration (docs/safety.md, Recovery record): a narrowed plan also reads the inactive
  // campaigns in flight of other orders declaring one `active: true`, to reactivate those.
  const restorable = desired.insertionOrders
    .filter((io) => !ioIds.has(io.id) && io.campaigns.some((c) => c.fields.active === true))
    .map((io) => io.id);
  if (restorable.length > 0) {
    progress("campaigns", restorable.length);
    const have = new Set(campaigns.map((c) => c.id));
    const inactive = await readByValues((r, o) => client.send(r, o), client.endpoints.campaigns, {
      field: "insertion_order_id",
      values: restorable,
      query: { filter: { active: [false], in_flight: [true] } },
      options: send,
    });
    append(
      campaigns,
      inactive.filter((c) => !have.has(c.id)),
    );
  }

  const live = LiveIndex.of({ insertionOrders, campaigns, creatives: [] });
  const withTargetings: string[] = [];
  const withCreatives: string[] = [];
  const referenced = new Set<string>();
  for (const id of foundIos) {
    const io = configIos.get(id)!;
    const whole = all || targets.includes(id);
    for (const match of matchCampaigns(io, live).matches) {
      const inScope =
        whole ||
        (match.live !== undefined && targetCampaigns.has(match.live.id)) ||
        changedCampaigns.has(campaignKey(id, match.desired.name));
      if (!inScope) continue;
      for (const creativeId of match.desired.creatives ?? []) referenced.add(creativeId);
      if (!match.live || match.status !== "matched") continue;
      if (match.desired.targetings !== undefined) withTargetings.push(match.live.id);
      // DOOH501 also needs the creatives of a campaign the plan activates, declared or not;
      // they join the same campaign_ids read, so this rarely costs a request.
      const activated = match.desired.fields.active === true && !match.live.active;
      if (match.desired.creatives !== undefined || activated) withCreatives.push(match.live.id);
    }
  }
  for (const c of desired.creatives) if (creativeInScope(c.id)) referenced.add(c.id);

  // G5: one read per campaign, or none when the dialect's campaigns embed them
  // (`campaign_targetings`): the campaign answers above hold them, checked by the client.
  const embedded = client.dialect.campaign_targetings !== null;
  progress("targetings", embedded ? 0 : withTargetings.length);
  const byId = new Map(campaigns.map((c) => [c.id, c]));
  const targetingMap: Map<string, TargetingOptionSet[]> =
    withTargetings.length === 0
      ? new Map()
      : embedded
        ? new Map(withTargetings.map((id) => [id, embeddedTargetings(byId.get(id), id)]))
        : await client.getTargetings(withTargetings, send);

  const creatives: Creative[] = [];
  progress("creatives", withCreatives.length + referenced.size);
  if (withCreatives.length > 0) append(creatives, await client.listCreativesByCampaign(withCreatives, send));
  const haveCreatives = new Set(creatives.map((c) => c.id));
  const missing = sortedIds([...referenced].filter((id) => !haveCreatives.has(id)));
  if (missing.length > 0) append(creatives, await client.getCreatives(missing, send));

  const creativeCategories = await readGainedCategories({
    client,
    desired,
    inScope: creativeInScope,
    creatives,
    send,
    progress,
  });

  // The money table names each insertion order's advertiser, so an approver reads "Acme", not
  // "advertiser 1"; G6 rule 2 also names both sides of a mismatch.
  const ioAdvertiser = new Map(insertionOrders.map((io) => [io.id, io.advertiser_id]));
  const creativeById = new Map(creatives.map((c) => [c.id, c]));
  const advertiserIds = new Set<string>(ioAdvertiser.values());
  for (const io of desired.insertionOrders) {
    const expected = ioAdvertiser.get(io.id);
    if (expected === undefined) continue;
    for (const c of io.campaigns) {
      for (const creativeId of c.creatives ?? []) {
        const actual = creativeById.get(creativeId)?.advertiser_id;
        if (actual !== undefined && actual !== expected) advertiserIds.add(actual).add(expected);
      }
    }
  }
  progress("advertisers", advertiserIds.size);
  const advertisers =
    advertiserIds.size > 0 ? await client.getAdvertisers(sortedIds([...advertiserIds]), send) : [];

  return {
    insertionOrders,
    campaigns,
    targetings: Object.fromEntries(targetingMap),
    creatives,
    advertisers,
    ...(creativeCategories !== undefined ? { creativeCategories } : {}),
    readRequests: client.stats().reads - readsAtStart,
  };
}

/**
 * G6 rule 5: `category_ids` must exist. Categories are read-only, so only those a creative would
 * gain are read (by id or the whole list, whichever is cheaper: G12); none without `category_ids`.
 */
async function readGainedCategories(input: {
  client: DspClient;
  desired: DesiredState;
  inScope: (creativeId: string) => boolean;
  creatives: readonly Creative[];
  send: SendOptions;
  progress: (step: ReadProgress["step"], count: number) => void;
}): Promise<CreativeCategory[] | undefined> {
  const declared = input.desired.creatives.filter(
    (c) => c.fields.category_ids !== undefined && input.inScope(c.id),
  );
  if (declared.length === 0) return undefined;
  const live = new Map(input.creatives.map((c) => [c.id, new Set(c.category_ids)]));
  const gained = new Set<string>();
  for (const c of declared) {
    const have = live.get(c.id);
    if (!have) continue;
    for (const id of c.fields.category_ids ?? []) if (!have.has(id)) gained.add(id);
  }
  input.progress("creative categories", gained.size);
  if (gained.size === 0) return [];
  return input.client.getCreativeCategories(sortedIds([...gained]), input.send);
}

/** A read campaign's embedded targetings; the client refuses an answer without them (answer.ts). */
function embeddedTargetings(campaign: Campaign | undefined, id: string): TargetingOptionSet[] {
  if (campaign?.targetings === undefined)
    throw new Error(`campaign ${id} was read without its embedded targetings`);
  return campaign.targetings;
}
