/**
 * The one module that names every path, query and body shape of the DSP. Each builder is
 * pure and returns plain data (an ApiRequest), so the planner can put requests in a plan file
 * and the client can send them. Where the specification says "not shown", the shape rests on
 * a gap decision, cited as G<n>; if a real deployment differs, this is the place to adapt.
 */
import type { TargetingOptionSet } from "../model/targeting.js";
import type {
  Advertiser,
  AuditStatus,
  Campaign,
  CampaignCreate,
  CampaignPatch,
  Creative,
  CreativeCampaignMarket,
  CreativeCategory,
  CreativeCreate,
  CreativePatch,
  InsertionOrder,
  InsertionOrderPatch,
  MediaOwnerCreative,
  Network,
  SessionInfo,
} from "../model/wire.js";
import { DSP_BASE_PATH, MEDIA_OWNER_BASE_PATH, SESSION_PATH } from "../model/wire.js";
import type { Credentials, HttpMethod, TypedRequest } from "./types.js";

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
const mediaOwner = (path: string) => `${MEDIA_OWNER_BASE_PATH}${path}`;
const segment = (id: string) => encodeURIComponent(id);

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

/** A write: its method, path and JSON body. */
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

const progress = (q: { includeProgress?: boolean }): Array<[string, string]> =>
  q.includeProgress ? [["include_progress", "true"]] : [];

export const Endpoints = {
  // Sessions (spec, Authentication; G9). The body holds the password: never stored or logged.
  createSession: (credentials: Credentials) =>
    write<SessionInfo>("POST", SESSION_PATH, { email: credentials.email, password: credentials.password }),
  /** G9: ends the session of the cookie sent. */
  deleteSession: (): TypedRequest<undefined> => ({ method: "DELETE", path: SESSION_PATH }),

  // Insertion orders: read and list are G1; the PATCHes are in the spec.
  insertionOrders: list<"insertion_orders", InsertionOrder, InsertionOrderFilter>(
    "insertion_orders",
    dsp("/insertion_orders"),
  ),
  getInsertionOrder: (id: string) => get<InsertionOrder>(dsp(`/insertion_orders/${segment(id)}`)),
  /** Spec + G4: `{insertion_orders: [...]}`, 1..100 items, transactional. */
  patchInsertionOrders: (items: readonly InsertionOrderPatch[]) =>
    write<{ insertion_orders: InsertionOrder[] }>("PATCH", dsp("/insertion_orders"), {
      insertion_orders: items,
    }),
  patchInsertionOrder: (id: string, patch: Omit<InsertionOrderPatch, "id">) =>
    write<InsertionOrder>("PATCH", dsp(`/insertion_orders/${segment(id)}`), patch),

  // Campaigns (spec; G2, G3, G4).
  campaigns: {
    key: "campaigns",
    request: (query: CampaignListQuery) => get(dsp("/campaigns"), listQuery(query, progress(query))),
  } as ListEndpoint<"campaigns", Campaign, CampaignFilter> & {
    request(query: CampaignListQuery): TypedRequest<ListResponse<"campaigns", Campaign>>;
  },
  getCampaign: (id: string, options: { includeProgress?: boolean } = {}) =>
    get<Campaign>(dsp(`/campaigns/${segment(id)}`), progress(options)),
  /** G3: `{campaigns: [CampaignCreate]}`, 1..100 items, transactional. */
  createCampaigns: (items: readonly CampaignCreate[]) =>
    write<{ campaigns: Campaign[] }>("POST", dsp("/campaigns"), { campaigns: items }),
  /** Spec + G4: `{campaigns: [{id, ...changes}]}`, 1..100 items, transactional. */
  patchCampaigns: (items: readonly CampaignPatch[]) =>
    write<{ campaigns: Campaign[] }>("PATCH", dsp("/campaigns"), { campaigns: items }),
  patchCampaign: (id: string, patch: Omit<CampaignPatch, "id">) =>
    write<Campaign>("PATCH", dsp(`/campaigns/${segment(id)}`), patch),
  /** G5: the read path is assumed; `{targetings: []}` when never set. */
  getTargetings: (campaignId: string) =>
    get<{ targetings: TargetingOptionSet[] }>(dsp(`/campaigns/${segment(campaignId)}/targetings`)),
  /** Spec: PUT replaces the whole list. G5: dropping a set of an active campaign is refused. */
  putTargetings: (campaignId: string, targetings: readonly TargetingOptionSet[]) =>
    write<{ targetings: TargetingOptionSet[] }>("PUT", dsp(`/campaigns/${segment(campaignId)}/targetings`), {
      targetings,
    }),

  // Advertisers (spec; G7 for the create body).
  advertisers: list<"advertisers", Advertiser, "id">("advertisers", dsp("/advertisers")),
  getAdvertiser: (id: string) => get<Advertiser>(dsp(`/advertisers/${segment(id)}`)),
  createAdvertiser: (name: string) => write<Advertiser>("POST", dsp("/advertisers"), { name }),

  // Creative categories (spec): read only.
  creativeCategories: list<"creative_categories", CreativeCategory, "id">(
    "creative_categories",
    dsp("/creative_categories"),
  ),
  getCreativeCategory: (id: string) => get<CreativeCategory>(dsp(`/creative_categories/${segment(id)}`)),

  // Creatives (spec; G6 for list fields and the batch bodies).
  creatives: list<"creatives", Creative, CreativeFilter>("creatives", dsp("/creatives")),
  getCreative: (id: string) => get<Creative>(dsp(`/creatives/${segment(id)}`)),
  createCreatives: (items: readonly CreativeCreate[]) =>
    write<{ creatives: Creative[] }>("POST", dsp("/creatives"), { creatives: items }),
  patchCreatives: (items: readonly CreativePatch[]) =>
    write<{ creatives: Creative[] }>("PATCH", dsp("/creatives"), { creatives: items }),
  patchCreative: (id: string, patch: Omit<CreativePatch, "id">) =>
    write<Creative>("PATCH", dsp(`/creatives/${segment(id)}`), patch),

  // Media-owner interface (spec; G11 for its base path).
  creativeCampaignMarkets: (creativeId: string) =>
    list<"campaigns", CreativeCampaignMarket, string>(
      "campaigns",
      mediaOwner(`/creatives/${segment(creativeId)}/campaigns`),
    ),
  patchCreativeAudit: (
    creativeId: string,
    audit: { status: AuditStatus; message?: string; category_ids?: string[]; tag_ids?: string[] },
  ) => write<MediaOwnerCreative>("PATCH", mediaOwner(`/creatives/${segment(creativeId)}`), { audit }),
  getMediaOwnerCreativeCategory: (id: string) =>
    get<CreativeCategory>(mediaOwner(`/creative_categories/${segment(id)}`)),
  networks: list<"networks", Network, "id">("networks", mediaOwner("/networks")),
};
