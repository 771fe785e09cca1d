/**
 * Creatives, DSP view (spec; G6), with the five association rules. A creative belongs to its
 * creator's seat: another seat's is neither listed, read nor written (404, or `does not exist` in a
 * batch). New ones settle PROCESSING_DELAY_MS later on the clock (FAILED when the URL is not https).
 */
import { compareIds, sortedIds } from "../../model/targeting.js";
import { Time } from "../../model/time.js";
import { CREATIVE_TYPES, type CreativeAsset, type CreativeType, DSP_BASE_PATH } from "../../model/wire.js";
import { collectionRoutes, ok, pathObject, type Reply, type RequestContext, wrote } from "../context.js";
import { Issues } from "../errors.js";
import {
  checkKeys,
  fieldPath,
  readBoolean,
  readCount,
  readIdList,
  readInt32,
  readObject,
  readString,
  readUrl,
  requireKeys,
} from "../fields.js";
import { byId, byString, type ListSpec, parseFlags, parseListQuery, runList } from "../listing.js";
import { CREATIVE_MEMBERS, memberNames, writeKeys } from "../members.js";
import { type CreativeRecord, instant, nextId, PROCESSING_DELAY_MS, type Store } from "../store.js";
import { readBatch, readPatchBatch, readPatchBody } from "./batch.js";

/** The keys of a PATCH body (single, or each batch item), and of a create item. */
const PATCH_KEYS = writeKeys(CREATIVE_MEMBERS, "patch");
const CREATE_KEYS = writeKeys(CREATIVE_MEMBERS, "create");
const REQUIRED = memberNames(CREATIVE_MEMBERS, (m) => m.create === "required");

function listSpec(store: Store, seat: string): ListSpec<CreativeRecord> {
  return {
    // G6
    filters: {
      id: (c) => c.id,
      advertiser_id: (c) => c.advertiser_id,
      campaign_ids: (c) => c.campaign_ids,
      insertion_order_ids: (c) => c.insertion_order_ids,
      archived: (c) => c.archived,
      type: (c) => c.type,
      processing_status: (c) => c.processing_status,
    },
    search: { name: (c) => c.name },
    order: {
      id: byId,
      name: byString((c: CreativeRecord) => c.name),
      create_time: (a, b) => instant(a.create_time) - instant(b.create_time),
    },
    candidates: (filters) => {
      const ids = filters.get("id");
      return ids ? [...ids].flatMap((id) => store.creativeOfSeat(id, seat) ?? []).sort(byId) : undefined;
    },
  };
}

/** The seat of the session's user: its account (spec: creatives belong to one seat). */
function seatOf(ctx: RequestContext): string {
  return ctx.user?.account_id ?? "";
}

/** The seat's creatives in ascending id order; the whole map when no other seat has any. */
function seatCreatives(store: Store, seat: string): ReadonlyMap<string, CreativeRecord> {
  const all = store.creatives;
  for (const creative of all.values()) {
    if (creative.seat_id !== seat) {
      return new Map([...all].filter(([, c]) => c.seat_id === seat));
    }
  }
  return all;
}

/** Spec: the list is "for the current seat"; another seat's creatives are not in it. */
function list(ctx: RequestContext): Reply {
  const seat = seatOf(ctx);
  const spec = listSpec(ctx.store, seat);
  const query = parseListQuery(ctx.query, spec);
  const { items, total } = runList(seatCreatives(ctx.store, seat), query, spec);
  return ok({ creatives: items.map((c) => ctx.store.creativeView(c)), total_size: total });
}

function get(ctx: RequestContext): Reply {
  parseFlags(ctx.query);
  const creative = pathObject(ctx, (id) => ctx.store.creativeOfSeat(id, seatOf(ctx)));
  return ok(ctx.store.creativeView(creative));
}

/** An id list, kept only when `problems` finds none (each is recorded on `field`). */
function readAcceptedIds(
  issues: Issues,
  field: string,
  value: unknown,
  problems: (ids: readonly string[]) => string[],
): string[] | undefined {
  const ids = readIdList(issues, field, value);
  if (!ids) return undefined;
  const found = problems(ids);
  for (const problem of found) issues.add(field, problem);
  return found.length > 0 ? undefined : ids;
}

/** Rule 5: categories must exist. */
function readCategories(store: Store, issues: Issues, field: string, value: unknown): string[] | undefined {
  const ids = readAcceptedIds(issues, field, value, (list) =>
    list.filter((id) => !store.categories.has(id)).map((id) => `category ${id} does not exist`),
  );
  return ids && sortedIds(ids);
}

/** Rules 1, 2 and 4 for the campaigns a creative would have. */
function campaignProblems(store: Store, creative: CreativeRecord, ids: readonly string[]): string[] {
  const problems = ids.flatMap((id) => {
    const campaign = store.campaigns.get(id);
    // Rule 1
    if (!campaign) return [`campaign ${id} does not exist`];
    // Rule 2
    const advertiser = store.insertionOrders.get(campaign.insertion_order_id)?.advertiser_id;
    return advertiser !== creative.advertiser_id ? [`advertiser does not match campaign ${id}`] : [];
  });
  // Rule 4: an archived creative keeps what it has but gains nothing.
  if (creative.archived && ids.some((id) => !creative.campaign_ids.includes(id)))
    problems.push("is archived");
  return problems;
}

function insertionOrderProblems(store: Store, creative: CreativeRecord, ids: readonly string[]): string[] {
  return ids.flatMap((id) => {
    const io = store.insertionOrders.get(id);
    if (!io) return [`insertion order ${id} does not exist`];
    return io.advertiser_id !== creative.advertiser_id
      ? [`advertiser does not match insertion order ${id}`]
      : [];
  });
}

/** One creative's patch: `prefix` names its fields in the request (`creatives[2]`, or none). */
interface CreativePatch {
  prefix: string;
  current: CreativeRecord;
  body: Record<string, unknown>;
}

/** G6 rules 1 to 5 for one creative's patch; returns the creative as it would be. */
function patched(store: Store, issues: Issues, { prefix, current, body }: CreativePatch): CreativeRecord {
  const at = (key: string) => fieldPath(prefix, key);
  const next: CreativeRecord = { ...current };
  if (body.pixel_url !== undefined) {
    const url = readUrl(issues, at("pixel_url"), body.pixel_url);
    if (url !== undefined) next.pixel_url = url;
  }
  if (body.category_ids !== undefined) {
    const ids = readCategories(store, issues, at("category_ids"), body.category_ids);
    if (ids) next.category_ids = ids;
  }
  if (body.campaign_ids !== undefined) {
    const ids = readAcceptedIds(issues, at("campaign_ids"), body.campaign_ids, (list) =>
      campaignProblems(store, current, list),
    );
    if (ids) next.campaign_ids = sortedIds(ids);
  }
  if (body.insertion_order_ids !== undefined) {
    const ids = readAcceptedIds(issues, at("insertion_order_ids"), body.insertion_order_ids, (list) =>
      insertionOrderProblems(store, current, list),
    );
    if (ids) next.insertion_order_ids = ids;
  }
  // Rule 3: every associated campaign's insertion order is associated too; removing a
  // campaign leaves the insertion orders as they are.
  const orders = new Set(next.insertion_order_ids);
  for (const id of next.campaign_ids) {
    const campaign = store.campaigns.get(id);
    if (campaign) orders.add(campaign.insertion_order_id);
  }
  next.insertion_order_ids = [...orders].sort(compareIds);
  return next;
}

function patchBatch(ctx: RequestContext): Reply {
  const issues = new Issues();
  const seat = seatOf(ctx);
  // Another seat's creative does not exist for this user (G4: `does not exist`).
  const items = readPatchBatch(issues, ctx.json(), "creatives", (id) => ctx.store.creativeOfSeat(id, seat));
  const next: CreativeRecord[] = [];
  for (const { prefix, body, current } of items) {
    checkKeys(issues, prefix, body, PATCH_KEYS);
    if (current) next.push(patched(ctx.store, issues, { prefix, current, body }));
  }
  issues.throwIfAny();
  ctx.store.putCreatives(next, ctx.now);
  return wrote({ creatives: next.map((c) => ctx.store.creativeView(c)) });
}

function patchOne(ctx: RequestContext): Reply {
  const current = pathObject(ctx, (id) => ctx.store.creativeOfSeat(id, seatOf(ctx)));
  const issues = new Issues();
  const body = readPatchBody(issues, ctx.json(), current.id);
  checkKeys(issues, "", body, PATCH_KEYS);
  const next = patched(ctx.store, issues, { prefix: "", current, body });
  issues.throwIfAny();
  ctx.store.putCreatives([next], ctx.now);
  return wrote(ctx.store.creativeView(next));
}

function readAsset(issues: Issues, field: string, value: unknown): CreativeAsset | undefined {
  const body = readObject(issues, field, value);
  if (!body) return undefined;
  const before = issues.size;
  checkKeys(issues, field, body, { writable: ["url", "width", "height", "format", "file_size_bytes"] });
  requireKeys(issues, field, body, ["url", "width", "height", "format", "file_size_bytes"]);
  if (issues.size > before) return undefined;
  // The spec gives the asset's url and format as strings and its sizes as integers, no more:
  // a URL that is not https fails processing (G6), it is not refused (docs/emulator.md).
  const unbounded = { max: Number.POSITIVE_INFINITY };
  const url = readString(issues, `${field}.url`, body.url, unbounded);
  const width = readCount(issues, `${field}.width`, body.width);
  const height = readCount(issues, `${field}.height`, body.height);
  const format = readString(issues, `${field}.format`, body.format, unbounded);
  const size = readCount(issues, `${field}.file_size_bytes`, body.file_size_bytes);
  if (issues.size > before) return undefined;
  return { url: url!, height: height!, width: width!, format: format!, file_size_bytes: size! };
}

function create(ctx: RequestContext): Reply {
  const issues = new Issues();
  const items = readBatch(issues, ctx.json(), "creatives");
  const base = BigInt(nextId(ctx.store.creatives));
  const created: CreativeRecord[] = [];
  const now = Time.fromMillis(ctx.now);
  items.forEach((raw, index) => {
    const prefix = `creatives[${index}]`;
    const body = readObject(issues, prefix, raw);
    if (!body) return;
    const before = issues.size;
    checkKeys(issues, prefix, body, CREATE_KEYS);
    requireKeys(issues, prefix, body, REQUIRED);
    const at = (key: string) => `${prefix}.${key}`;
    const name =
      body.name === undefined ? undefined : readString(issues, at("name"), body.name, { min: 1, max: 200 });
    if (
      body.advertiser_id !== undefined &&
      !(typeof body.advertiser_id === "string" && ctx.store.advertisers.has(body.advertiser_id))
    ) {
      issues.add(at("advertiser_id"), "does not exist");
    }
    if (body.type !== undefined && !CREATIVE_TYPES.includes(body.type as CreativeType)) {
      issues.add(at("type"), `must be one of ${CREATIVE_TYPES.join(", ")}`);
    }
    const asset = body.asset === undefined ? undefined : readAsset(issues, at("asset"), body.asset);
    const duration =
      body.duration_ms === undefined ? 0 : readInt32(issues, at("duration_ms"), body.duration_ms);
    const audio =
      body.requires_audio === undefined
        ? false
        : readBoolean(issues, at("requires_audio"), body.requires_audio);
    const categories =
      body.category_ids === undefined
        ? []
        : readCategories(ctx.store, issues, at("category_ids"), body.category_ids);
    const pixel = body.pixel_url === undefined ? "" : readUrl(issues, at("pixel_url"), body.pixel_url);
    if (issues.size > before) return;
    created.push({
      id: (base + BigInt(created.length)).toString(),
      campaign_ids: [],
      insertion_order_ids: [],
      category_ids: categories!,
      advertiser_id: body.advertiser_id as string,
      create_time: now,
      name: name!,
      thumbnail_url: asset!.url,
      pixel_url: pixel!,
      duration_ms: duration!,
      archived: false,
      type: body.type as CreativeType,
      requires_audio: audio!,
      processing_status: "PROCESSING",
      asset: asset!,
      audits: [],
      seat_id: seatOf(ctx),
    });
  });
  issues.throwIfAny();
  for (const creative of created) {
    ctx.store.creatives.set(creative.id, creative);
    ctx.store.processingDue.set(creative.id, ctx.now + PROCESSING_DELAY_MS);
  }
  return wrote({ creatives: created.map((c) => ctx.store.creativeView(c)) });
}

export const creativeRoutes = collectionRoutes(`${DSP_BASE_PATH}/creatives`, {
  list,
  create,
  patchBatch,
  get,
  patchOne,
});
