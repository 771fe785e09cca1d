/**
 * Campaigns: list and get with include_progress (G2), create (G3), PATCH one and batch (G4), every
 * write checked against G8 on the state it would produce.
 */
import { DSP_BASE_PATH } from "../../model/wire.js";
import { collectionRoutes, ok, pathObject, type Reply, type RequestContext, wrote } from "../context.js";
import { Issues } from "../errors.js";
import { checkKeys, readObject, readString, requireKeys } from "../fields.js";
import { byId, byString, type ListSpec, parseFlags, parseListQuery, runList } from "../listing.js";
import { CAMPAIGN_MEMBERS, created, memberNames, readPatch, writeKeys } from "../members.js";
import { checkInsertionOrder } from "../rules.js";
import { type CampaignRecord, instant, nextId, type Store } from "../store.js";
import { readBatch, readPatchBatch, readPatchBody } from "./batch.js";

/** The keys of a PATCH body (single, or each batch item), and of a create item. */
const PATCH_KEYS = writeKeys(CAMPAIGN_MEMBERS, "patch");
const CREATE_KEYS = writeKeys(CAMPAIGN_MEMBERS, "create");
const REQUIRED = memberNames(CAMPAIGN_MEMBERS, (m) => m.create === "required");

function listSpec(store: Store, now: number): ListSpec<CampaignRecord> {
  return {
    // G2
    filters: {
      id: (c) => c.id,
      insertion_order_id: (c) => c.insertion_order_id,
      in_flight: (c) => now >= instant(c.start_time) && now < instant(c.end_time),
      active: (c) => c.active,
    },
    search: { name: (c) => c.name },
    order: {
      id: byId,
      name: byString((c: CampaignRecord) => c.name),
      start_time: (a, b) => instant(a.start_time) - instant(b.start_time),
      end_time: (a, b) => instant(a.end_time) - instant(b.end_time),
    },
    flags: ["include_progress"],
    candidates: (filters) => {
      const ids = filters.get("id");
      if (ids) return store.sortedCampaigns("id", ids);
      const orders = filters.get("insertion_order_id");
      if (orders) return store.sortedCampaigns("insertion_order_id", orders);
      return undefined;
    },
  };
}

function list(ctx: RequestContext): Reply {
  const spec = listSpec(ctx.store, ctx.now);
  const query = parseListQuery(ctx.query, spec);
  const { items, total } = runList(ctx.store.campaigns, query, spec);
  if (query.flags.has("include_progress")) {
    return ok({ campaigns: items.map((c) => ctx.store.campaignView(c, ctx.now, true)), total_size: total });
  }
  const campaigns = items.map((c) => ctx.store.campaignJson(c, ctx.now)).join(",");
  return { status: 200, raw: `{"campaigns":[${campaigns}],"total_size":${total}}` };
}

function get(ctx: RequestContext): Reply {
  const flags = parseFlags(ctx.query, ["include_progress"]);
  const record = pathObject(ctx, (id) => ctx.store.campaigns.get(id));
  return ok(ctx.store.campaignView(record, ctx.now, flags.has("include_progress")));
}

interface Pending {
  record: CampaignRecord;
  /** Names a field of this item in the request (`campaigns[3].cpm`, or `cpm` for a single PATCH). */
  at: (field: string) => string;
  budgetTouched: boolean;
}

/** G8 on the state the request would produce, per insertion order; commits only when nothing fails. */
function commit(store: Store, issues: Issues, pending: readonly Pending[], now: number): void {
  const byId = new Map(pending.map((p) => [p.record.id, p]));
  const orders = new Set(pending.map((p) => p.record.insertion_order_id));
  for (const ioId of orders) {
    const io = store.insertionOrders.get(ioId);
    if (!io) continue; // reported as a missing insertion order already
    const campaigns = store.campaignsOf(ioId).map((c) => byId.get(c.id)?.record ?? c);
    for (const p of pending) {
      if (p.record.insertion_order_id === ioId && !store.campaigns.has(p.record.id)) campaigns.push(p.record);
    }
    for (const v of checkInsertionOrder(io, campaigns)) {
      if (v.subject === "campaign") {
        const item = byId.get(v.id);
        if (item) issues.add(item.at(v.field), v.message);
        continue;
      }
      // The insertion order's budget is exceeded: name each item that moved impressions into it.
      for (const p of pending) {
        if (p.record.insertion_order_id === ioId && p.budgetTouched)
          issues.add(p.at("budget_impressions"), v.message);
      }
    }
  }
  issues.throwIfAny();
  for (const p of pending) store.writeCampaign(p.record, now);
}

function create(ctx: RequestContext): Reply {
  const issues = new Issues();
  const items = readBatch(issues, ctx.json(), "campaigns");
  const base = BigInt(nextId(ctx.store.campaigns));
  const pending: Pending[] = [];
  items.forEach((raw, index) => {
    const prefix = `campaigns[${index}]`;
    const body = readObject(issues, prefix, raw);
    if (!body) return;
    const before = issues.size;
    checkKeys(issues, prefix, body, CREATE_KEYS);
    requireKeys(issues, prefix, body, REQUIRED);
    let ioId: string | undefined;
    if (body.insertion_order_id !== undefined) {
      if (typeof body.insertion_order_id !== "string")
        issues.add(`${prefix}.insertion_order_id`, "must be a string");
      else if (!ctx.store.insertionOrders.has(body.insertion_order_id)) {
        issues.add(`${prefix}.insertion_order_id`, "does not exist");
      } else ioId = body.insertion_order_id;
    }
    const name =
      body.name === undefined
        ? undefined
        : readString(issues, `${prefix}.name`, body.name, { min: 1, max: 200 });
    const changes = readPatch<CampaignRecord>(CAMPAIGN_MEMBERS, issues, prefix, body);
    if (issues.size > before || ioId === undefined || name === undefined) return;
    const id = (base + BigInt(pending.length)).toString();
    const record = created<CampaignRecord>(CAMPAIGN_MEMBERS, {
      id,
      insertion_order_id: ioId,
      name,
      ...changes,
    });
    pending.push({ record, at: (f) => `${prefix}.${f}`, budgetTouched: true });
  });
  commit(ctx.store, issues, pending, ctx.now);
  return wrote({ campaigns: pending.map((p) => ctx.store.campaignView(p.record, ctx.now)) });
}

function patchBatch(ctx: RequestContext): Reply {
  const issues = new Issues();
  const items = readPatchBatch(issues, ctx.json(), "campaigns", (id) => ctx.store.campaigns.get(id));
  const pending: Pending[] = [];
  for (const { prefix, body, current } of items) {
    checkKeys(issues, prefix, body, PATCH_KEYS);
    const changes = readPatch<CampaignRecord>(CAMPAIGN_MEMBERS, issues, prefix, body);
    if (!current) continue;
    pending.push({
      record: { ...current, ...changes },
      at: (f) => `${prefix}.${f}`,
      budgetTouched: changes.budget_impressions !== undefined,
    });
  }
  commit(ctx.store, issues, pending, ctx.now);
  return wrote({ campaigns: pending.map((p) => ctx.store.campaignView(p.record, ctx.now)) });
}

function patchOne(ctx: RequestContext): Reply {
  const current = pathObject(ctx, (id) => ctx.store.campaigns.get(id));
  const issues = new Issues();
  const body = readPatchBody(issues, ctx.json(), current.id);
  checkKeys(issues, "", body, PATCH_KEYS);
  const changes = readPatch<CampaignRecord>(CAMPAIGN_MEMBERS, issues, "", body);
  const record = { ...current, ...changes };
  commit(
    ctx.store,
    issues,
    [{ record, at: (f) => f, budgetTouched: changes.budget_impressions !== undefined }],
    ctx.now,
  );
  return wrote(ctx.store.campaignView(record, ctx.now));
}

export const campaignRoutes = collectionRoutes(`${DSP_BASE_PATH}/campaigns`, {
  list,
  create,
  patchBatch,
  get,
  patchOne,
});
