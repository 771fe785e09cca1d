/**
 * Insertion orders (G1): list, get, PATCH one and batch; no create (contracted outside the API). A
 * patch that would leave campaigns outside the flight, over the budget or in another currency is
 * refused (G8).
 */

import { plural } from "../../model/plural.js";
import { compareIds } from "../../model/targeting.js";
import { DSP_BASE_PATH, type InsertionOrder } from "../../model/wire.js";
import { collectionRoutes, ok, pathObject, type Reply, type RequestContext, wrote } from "../context.js";
import { Issues } from "../errors.js";
import { checkKeys } from "../fields.js";
import { byId, byString, type ListSpec, parseFlags, parseListQuery, runList } from "../listing.js";
import { INSERTION_ORDER_MEMBERS, readPatch, writeKeys } from "../members.js";
import { checkInsertionOrder } from "../rules.js";
import { instant, type Store } from "../store.js";
import { readPatchBatch, readPatchBody } from "./batch.js";

/** The keys of a PATCH body (single, or each batch item). */
const PATCH_KEYS = writeKeys(INSERTION_ORDER_MEMBERS, "patch");

function listSpec(store: Store): ListSpec<InsertionOrder> {
  return {
    filters: { id: (io) => io.id, advertiser_id: (io) => io.advertiser_id },
    search: { name: (io) => io.name },
    order: {
      id: byId,
      name: byString((io: InsertionOrder) => io.name),
      start_time: (a, b) => instant(a.start_time) - instant(b.start_time),
      end_time: (a, b) => instant(a.end_time) - instant(b.end_time),
    },
    candidates: (filters) => {
      const ids = filters.get("id");
      return ids ? [...ids].flatMap((id) => store.insertionOrders.get(id) ?? []).sort(byId) : undefined;
    },
  };
}

function list(ctx: RequestContext): Reply {
  const spec = listSpec(ctx.store);
  const { items, total } = runList(ctx.store.insertionOrders, parseListQuery(ctx.query, spec), spec);
  return ok({ insertion_orders: items.map((io) => structuredClone(io)), total_size: total });
}

function get(ctx: RequestContext): Reply {
  parseFlags(ctx.query);
  const io = pathObject(ctx, (id) => ctx.store.insertionOrders.get(id));
  return ok(structuredClone(io));
}

function campaignList(ids: readonly string[]): string {
  const sorted = [...ids].sort(compareIds);
  const shown = sorted.slice(0, 10).join(", ");
  const more = sorted.length > 10 ? ` and ${sorted.length - 10} more` : "";
  return `${plural(sorted.length, "campaign")} ${shown}${more}`;
}

/** G8, restated from the insertion order's side: which of its fields the change breaks. */
function check(store: Store, issues: Issues, io: InsertionOrder, at: (field: string) => string): void {
  const campaigns = store.campaignsOf(io.id);
  const outside = { start_time: [] as string[], end_time: [] as string[] };
  const currency: string[] = [];
  for (const v of checkInsertionOrder(io, campaigns)) {
    if (v.rule === "flight_order") issues.add(at("end_time"), "must be after start_time");
    else if (v.rule === "within_flight" && (v.field === "start_time" || v.field === "end_time")) {
      outside[v.field].push(v.id);
    } else if (v.rule === "currency") currency.push(v.id);
    else if (v.rule === "budget_sum") {
      const held = campaigns.reduce((sum, c) => sum + c.budget_impressions, 0);
      issues.add(at("budget_impressions"), `is below the ${held} impressions its campaigns hold`);
    }
  }
  if (outside.start_time.length > 0) {
    issues.add(
      at("start_time"),
      `would leave ${campaignList(outside.start_time)} starting before the insertion order`,
    );
  }
  if (outside.end_time.length > 0) {
    issues.add(
      at("end_time"),
      `would leave ${campaignList(outside.end_time)} ending after the insertion order`,
    );
  }
  if (currency.length > 0) {
    issues.add(at("budget_money"), `currency must match the cpm currency of ${campaignList(currency)}`);
  }
}

function patchBatch(ctx: RequestContext): Reply {
  const issues = new Issues();
  const items = readPatchBatch(issues, ctx.json(), "insertion_orders", (id) =>
    ctx.store.insertionOrders.get(id),
  );
  const next: InsertionOrder[] = [];
  for (const { prefix, body, current } of items) {
    checkKeys(issues, prefix, body, PATCH_KEYS);
    const changes = readPatch<InsertionOrder>(INSERTION_ORDER_MEMBERS, issues, prefix, body);
    if (!current) continue;
    const io = { ...current, ...changes };
    check(ctx.store, issues, io, (f) => `${prefix}.${f}`);
    next.push(io);
  }
  issues.throwIfAny();
  for (const io of next) ctx.store.insertionOrders.set(io.id, io);
  return wrote({ insertion_orders: next.map((io) => structuredClone(io)) });
}

function patchOne(ctx: RequestContext): Reply {
  const current = pathObject(ctx, (id) => ctx.store.insertionOrders.get(id));
  const issues = new Issues();
  const body = readPatchBody(issues, ctx.json(), current.id);
  checkKeys(issues, "", body, PATCH_KEYS);
  const io = { ...current, ...readPatch<InsertionOrder>(INSERTION_ORDER_MEMBERS, issues, "", body) };
  check(ctx.store, issues, io, (f) => f);
  issues.throwIfAny();
  ctx.store.insertionOrders.set(io.id, io);
  return wrote(structuredClone(io));
}

// No create (G1).
export const insertionOrderRoutes = collectionRoutes(`${DSP_BASE_PATH}/insertion_orders`, {
  list,
  patchBatch,
  get,
  patchOne,
});
