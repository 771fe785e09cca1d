/** Advertisers (spec; G7), creative categories (read-only), and the named lists' fields (G12). */
import { type Advertiser, type CreativeCategory, DSP_BASE_PATH } from "../../model/wire.js";
import { ok, pathObject, type Reply, type RequestContext, type Route, route, wrote } from "../context.js";
import { Issues } from "../errors.js";
import { checkKeys, readString } from "../fields.js";
import { byId, byString, type ListSpec, parseFlags, parseListQuery, runList } from "../listing.js";
import { nextId } from "../store.js";
import { readBody } from "./batch.js";

/** Which fields a named list takes, exactly as the specification names them for it (G12). */
export interface NamedListFields {
  filters: readonly "id"[];
  search: readonly "name"[];
  order: readonly ("id" | "name")[];
}

/** Spec: advertisers take filter `id` and search `name`; no order field is documented. */
const ADVERTISER_FIELDS: NamedListFields = { filters: ["id"], search: ["name"], order: [] };
/** Spec: "common list parameters" and no field named for any of them. */
const CATEGORY_FIELDS: NamedListFields = { filters: [], search: [], order: [] };
/** Spec (media owner): order `name`, filter `id`, search `name`. */
export const NETWORK_FIELDS: NamedListFields = { filters: ["id"], search: ["name"], order: ["name"] };

export function listNamed<T extends { id: string; name: string }>(
  ctx: RequestContext,
  envelope: string,
  map: ReadonlyMap<string, T>,
  fields: NamedListFields,
): Reply {
  const filter = { id: (item: T) => item.id };
  const search = { name: (item: T) => item.name };
  const order = { id: byId, name: byString((item: T) => item.name) };
  const spec: ListSpec<T> = {
    filters: Object.fromEntries(fields.filters.map((f) => [f, filter[f]])),
    search: Object.fromEntries(fields.search.map((f) => [f, search[f]])),
    order: Object.fromEntries(fields.order.map((f) => [f, order[f]])),
    candidates: (filters) => {
      const ids = filters.get("id");
      return ids ? [...ids].flatMap((id) => map.get(id) ?? []).sort(byId) : undefined;
    },
  };
  const { items, total } = runList(map, parseListQuery(ctx.query, spec), spec);
  return ok({ [envelope]: items.map((item) => ({ ...item })), total_size: total });
}

export function getNamed<T>(ctx: RequestContext, map: ReadonlyMap<string, T>): Reply {
  parseFlags(ctx.query);
  const found = pathObject(ctx, (id) => map.get(id));
  return ok({ ...found });
}

function create(ctx: RequestContext): Reply {
  const issues = new Issues();
  const body = readBody(ctx.json());
  checkKeys(issues, "", body, { writable: ["name"], readOnly: ["id"] });
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
  const advertiser: Advertiser = { id: nextId(ctx.store.advertisers), name: name! };
  ctx.store.advertisers.set(advertiser.id, advertiser);
  return wrote({ ...advertiser });
}

const ADVERTISERS = `${DSP_BASE_PATH}/advertisers`;
const CATEGORIES = `${DSP_BASE_PATH}/creative_categories`;

export const advertiserRoutes: Route[] = [
  route("GET", ADVERTISERS, (ctx) => listNamed(ctx, "advertisers", ctx.store.advertisers, ADVERTISER_FIELDS)),
  route("POST", ADVERTISERS, create),
  route("GET", `${ADVERTISERS}/:id`, (ctx) => getNamed(ctx, ctx.store.advertisers)),
  route("GET", CATEGORIES, (ctx) =>
    listNamed<CreativeCategory>(ctx, "creative_categories", ctx.store.categories, CATEGORY_FIELDS),
  ),
  route("GET", `${CATEGORIES}/:id`, (ctx) => getNamed(ctx, ctx.store.categories)),
];
