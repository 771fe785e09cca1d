/**
 * The one module that names every path, query and body shape doohctl sends: pure builders of
 * plain ApiRequests, which a plan file stores. A shape the spec leaves "not shown" cites its G
 * decision. Built from the dialect (`endpointsFor`, src/model/dialect.ts), so a plan shows each
 * request as sent; members.ts reads the answers back into the contract's names.
 */
import { DEFAULT_DIALECT, type Dialect } from "../model/dialect.js";
import type { TargetingOptionSet } from "../model/targeting.js";
import type {
  Advertiser,
  Campaign,
  CampaignCreate,
  CampaignPatch,
  Creative,
  CreativeCategory,
  CreativePatch,
  InsertionOrder,
  InsertionOrderPatch,
  SessionInfo,
} from "../model/wire.js";
import { DSP_BASE_PATH, SESSION_PATH } from "../model/wire.js";
import { ownMember } from "./members.js";
import type { Credentials, HttpMethod, TypedRequest } from "./request.js";

/** Common list query parameters (spec, "Common list query parameters"; G12). */
export interface ListQuery<Field extends string = string> {
  /** `field:value` entries: values of one field are ORed, different fields ANDed (spec). */
  filter?: Partial<Record<Field, readonly (string | boolean)[]>>;
  /** Case-insensitive substring match per field (spec). */
  search?: Partial<Record<string, readonly string[]>>;
  order?: string;
  asc?: boolean;
  /** G12: 0..100. */
  page?: number;
  /** Spec: 0..100, default 25 on the service; the client always asks for what it wants. */
  pageSize?: number;
}

/** A list response: one array named after the resource, plus `total_size` (spec). */
export type ListResponse<Key extends string, T> = { [K in Key]: T[] } & { total_size: number };

/** A list operation: how to build a page request and which member holds the items. */
export interface ListEndpoint<Key extends string, T, Field extends string = string> {
  key: Key;
  request(query: ListQuery<Field>): TypedRequest<ListResponse<Key, T>>;
}

const dsp = (path: string) => `${DSP_BASE_PATH}${path}`;
/**
 * An id as one path segment. `.` and `..` stay dot segments once encoded (URL parsers resolve
 * even `%2E%2E`): an id the DSP answered would move the read out of the DSP base path.
 */
function segment(id: string): string {
  if (id === "." || id === "..") {
    throw new Error(
      `the id "${id}" cannot be a path segment: it would move the request to another path. Nothing was sent; an id the DSP answered is for its operator to fix`,
    );
  }
  return encodeURIComponent(id);
}

function listQuery(query: ListQuery, extra: Array<[string, string]> = []): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (query.pageSize !== undefined) out.push(["page_size", String(query.pageSize)]);
  if (query.page !== undefined) out.push(["page", String(query.page)]);
  for (const [field, values] of Object.entries(query.filter ?? {})) {
    for (const value of (values as readonly (string | boolean)[] | undefined) ?? []) {
      out.push(["filter", `${field}:${String(value)}`]);
    }
  }
  for (const [field, values] of Object.entries(query.search ?? {})) {
    for (const value of values ?? []) out.push(["search", `${field}:${value}`]);
  }
  if (query.order !== undefined) out.push(["order", query.order]);
  if (query.asc !== undefined) out.push(["asc", String(query.asc)]);
  return [...out, ...extra];
}

function get<T>(path: string, query?: Array<[string, string]>): TypedRequest<T> {
  return query && query.length > 0 ? { method: "GET", path, query } : { method: "GET", path };
}

function write<T>(method: Exclude<HttpMethod, "GET">, path: string, body: unknown): TypedRequest<T> {
  return { method, path, body };
}

function list<Key extends string, T, Field extends string>(
  key: Key,
  path: string,
  extra: (query: ListQuery<Field>) => Array<[string, string]> = () => [],
): ListEndpoint<Key, T, Field> {
  return { key, request: (query) => get(path, listQuery(query, extra(query))) };
}

/** G1 filter fields of insertion orders. */
export type InsertionOrderFilter = "id" | "advertiser_id";
/** G2 filter fields of campaigns. */
export type CampaignFilter = "id" | "insertion_order_id" | "in_flight" | "active";
/** G6 filter fields of creatives. */
export type CreativeFilter =
  | "id"
  | "advertiser_id"
  | "campaign_ids"
  | "insertion_order_ids"
  | "archived"
  | "type"
  | "processing_status";

/** G2: `include_progress=true` adds `progress` to campaigns. */
export interface CampaignListQuery extends ListQuery<CampaignFilter> {
  includeProgress?: boolean;
}

/** A dialect's path template (`/campaigns/{id}/targetings`) with `id` in place of `{id}`. */
const withId = (template: string, id: string) => template.replace("{id}", segment(id));

/** The endpoints of the DSP as `dialect` places them; the default is every gap decision as written. */
export function endpointsFor(dialect: Dialect = DEFAULT_DIALECT) {
  // G2: the one parameter, `name=value` (src/model/dialect.ts checks it).
  const [name, value] = dialect.progress.parameter.split("=") as [string, string];
  const progress = (q: { includeProgress?: boolean }): Array<[string, string]> =>
    q.includeProgress ? [[name, value]] : [];
  // G1: the contract number under the dialect's member, in what doohctl writes.
  const contract = <T extends object>(item: T): T => {
    if (dialect.contract_number === DEFAULT_DIALECT.contract_number || !("contract_number" in item))
      return item;
    const { contract_number, ...rest } = item as T & { contract_number: unknown };
    return { ...rest, [dialect.contract_number]: contract_number } as T;
  };
  const insertionOrders = dialect.insertion_orders_path;
  const createMember = dialect.create_campaigns_member;
  return {
    // Sessions (spec, Authentication; G9). The body holds the password: never stored or logged.
    createSession: (credentials: Credentials) =>
      write<SessionInfo>("POST", SESSION_PATH, { email: credentials.email, password: credentials.password }),

    // Insertion orders: read and list are G1; the PATCHes are in the spec.
    insertionOrders: list<"insertion_orders", InsertionOrder, InsertionOrderFilter>(
      "insertion_orders",
      dsp(insertionOrders),
    ),
    getInsertionOrder: (id: string) => get<InsertionOrder>(dsp(`${insertionOrders}/${segment(id)}`)),
    /** Spec + G4: `{insertion_orders: [...]}`, 1..100 items, transactional. */
    patchInsertionOrders: (items: readonly InsertionOrderPatch[]) =>
      write<{ insertion_orders: InsertionOrder[] }>("PATCH", dsp("/insertion_orders"), {
        insertion_orders: items.map(contract),
      }),

    // Campaigns (spec; G2, G3, G4).
    campaigns: {
      key: "campaigns",
      request: (query: CampaignListQuery) => get(dsp("/campaigns"), listQuery(query, progress(query))),
    } as ListEndpoint<"campaigns", Campaign, CampaignFilter> & {
      request(query: CampaignListQuery): TypedRequest<ListResponse<"campaigns", Campaign>>;
    },
    getCampaign: (id: string, options: { includeProgress?: boolean } = {}) =>
      get<Campaign>(dsp(`/campaigns/${segment(id)}`), progress(options)),
    /** G3: `{campaigns: [CampaignCreate]}` (the dialect's member), 1..100 items, transactional. */
    createCampaigns: (items: readonly CampaignCreate[]) =>
      write<{ campaigns: Campaign[] }>("POST", dsp("/campaigns"), { [createMember]: items }),
    /** Spec + G4: `{campaigns: [{id, ...changes}]}`, 1..100 items, transactional. */
    patchCampaigns: (items: readonly CampaignPatch[]) =>
      write<{ campaigns: Campaign[] }>("PATCH", dsp("/campaigns"), { campaigns: items }),
    /** G5: the read path is assumed (the dialect's); `{targetings: []}` when never set. */
    getTargetings: (campaignId: string) =>
      get<{ targetings: TargetingOptionSet[] }>(dsp(withId(dialect.targetings.read_path, campaignId))),
    /** Spec: PUT replaces the whole list. G5: dropping a set of an active campaign is refused. */
    putTargetings: (campaignId: string, targetings: readonly TargetingOptionSet[]) =>
      write<{ targetings: TargetingOptionSet[] }>(
        "PUT",
        dsp(`/campaigns/${segment(campaignId)}/targetings`),
        {
          targetings,
        },
      ),

    // Advertisers (spec).
    advertisers: list<"advertisers", Advertiser, "id">("advertisers", dsp("/advertisers")),

    // Creative categories (spec): read only.
    creativeCategories: list<"creative_categories", CreativeCategory, "id">(
      "creative_categories",
      dsp("/creative_categories"),
    ),
    getCreativeCategory: (id: string) => get<CreativeCategory>(dsp(`/creative_categories/${segment(id)}`)),

    // Creatives (spec; G6 for list fields and the batch bodies).
    creatives: list<"creatives", Creative, CreativeFilter>("creatives", dsp("/creatives")),
    patchCreatives: (items: readonly CreativePatch[]) =>
      write<{ creatives: Creative[] }>("PATCH", dsp("/creatives"), { creatives: items }),
  };
}

export type DspEndpoints = ReturnType<typeof endpointsFor>;

/** The items of a POST /campaigns body `dialect` built (a saved plan's, G3), or undefined. */
export function createdItems(dialect: Dialect, body: unknown): unknown {
  return ownMember(body, dialect.create_campaigns_member);
}

/** The endpoints of the gap decisions as written, for requests no dialect moves (sessions, tests). */
export const Endpoints = endpointsFor(DEFAULT_DIALECT);

/**
 * The contract's path for a path `dialect` placed (`GET /orders/7`: `/insertion_orders/7`), to
 * check an answer against its operation. Only reads move (G1, G5).
 */
export function contractPath(dialect: Dialect, method: HttpMethod, path: string): string {
  if (method !== "GET" || !path.startsWith(`${DSP_BASE_PATH}/`)) return path;
  const rest = path.slice(DSP_BASE_PATH.length).split("/");
  const io = dialect.insertion_orders_path.split("/");
  if (dialect.insertion_orders_path !== DEFAULT_DIALECT.insertion_orders_path && startsWith(rest, io)) {
    const tail = rest.slice(io.length);
    if (tail.length <= 1) return dsp(["/insertion_orders", ...tail].join("/"));
  }
  const read = dialect.targetings.read_path.split("/");
  if (dialect.targetings.read_path !== DEFAULT_DIALECT.targetings.read_path && read.length === rest.length) {
    const at = read.indexOf("{id}");
    if (read.every((part, i) => i === at || part === rest[i]) && rest[at] !== "") {
      return dsp(`/campaigns/${rest[at]}/targetings`);
    }
  }
  return path;
}

const startsWith = (parts: readonly string[], prefix: readonly string[]) =>
  prefix.length <= parts.length && prefix.every((part, i) => parts[i] === part);
