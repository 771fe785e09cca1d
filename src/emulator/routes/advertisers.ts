/**
 * Advertisers (spec; G7) and creative categories (read-only). Neither list names its order
 * fields in the specification; the emulator takes `id` and `name` (docs/emulator.md).
 */
import { type Advertiser, type CreativeCategory, DSP_BASE_PATH } from "../../model/wire.js";
import { ok, type Reply, type RequestContext, type Route, wrote } from "../context.js";
import { Issues, notFound } from "../errors.js";
import { checkKeys, readString } from "../fields.js";
import { byId, byString, type ListSpec, parseFlags, parseListQuery, runList } from "../listing.js";
import { readBody } from "./batch.js";

/** The spec's shape for advertisers, categories and networks: filter id, search and order by name. */
export function namedListSpec<T extends { id: string; name: string }>(
  envelope: string,
  map: ReadonlyMap<string, T>,
  orderFields: readonly ("id" | "name")[] = ["id", "name"],
): ListSpec<T> {
  const order = { id: byId, name: byString((item: T) => item.name) };
  return {
    envelope,
    filters: { id: (item) => item.id },
    search: { name: (item) => item.name },
    order: Object.fromEntries(orderFields.map((f) => [f, order[f]])),
    candidates: (filters) => {
      const ids = filters.get("id");
      return ids ? [...ids].flatMap((id) => map.get(id) ?? []).sort(byId) : undefined;
    },
  };
}

export function listNamed<T extends { id: string; name: string }>(
  ctx: RequestContext,
  envelope: string,
  map: ReadonlyMap<string, T>,
  orderFields?: readonly ("id" | "name")[],
): Reply {
  const spec = namedListSpec(envelope, map, orderFields);
  const { items, total } = runList(map, parseListQuery(ctx.query, spec), spec);
  return ok({ [envelope]: items.map((item) => ({ ...item })), total_size: total });
}

export function getNamed<T>(ctx: RequestContext, map: ReadonlyMap<string, T>): Reply {
  parseFlags(ctx.query);
  const found = map.get(ctx.params.id ?? "");
  if (found === undefined) throw notFound();
  return ok({ ...found });
}

function create(ctx: RequestContext): Reply {
  const issues = new Issues();
  const body = readBody(ctx.json());
  checkKeys(issues, "", body, ["name"], ["id"]);
  if (body.name === undefined) issues.add("name", "is required");
  const name =
    body.name === undefined ? undefined : readString(issues, "name", body.name, { min: 1, max: 200 });
  if (name !== undefined) {
    const lower = name.toLowerCase();
    // G7: names are unique, compared case-insensitively.
    for (const advertiser of ctx.store.advertisers.values()) {
      if (advertiser.name.toLowerCase() === lower) {
        issues.add("name", "already exists");
        break;
      }
    }
  }
  issues.throwIfAny();
  const advertiser: Advertiser = { id: ctx.store.nextId("advertisers"), name: name! };
  ctx.store.advertisers.set(advertiser.id, advertiser);
  return wrote({ ...advertiser });
}

const ADVERTISERS = `${DSP_BASE_PATH}/advertisers`;
const CATEGORIES = `${DSP_BASE_PATH}/creative_categories`;

export const advertiserRoutes: Route[] = [
  {
    method: "GET",
    pattern: ADVERTISERS,
    auth: true,
    handle: (ctx) => listNamed(ctx, "advertisers", ctx.store.advertisers),
  },
  { method: "POST", pattern: ADVERTISERS, auth: true, handle: create },
  {
    method: "GET",
    pattern: `${ADVERTISERS}/:id`,
    auth: true,
    handle: (ctx) => getNamed(ctx, ctx.store.advertisers),
  },
  {
    method: "GET",
    pattern: CATEGORIES,
    auth: true,
    handle: (ctx) => listNamed<CreativeCategory>(ctx, "creative_categories", ctx.store.categories),
  },
  {
    method: "GET",
    pattern: `${CATEGORIES}/:id`,
    auth: true,
    handle: (ctx) => getNamed(ctx, ctx.store.categories),
  },
];
