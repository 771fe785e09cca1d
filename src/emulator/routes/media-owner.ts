/**
 * The media-owner interface (G11): a creative's campaigns and markets, the audit PATCH (that
 * network's entry in the DSP view's `audits`), categories and networks; same cookie and rules.
 */
import { Time } from "../../model/time.js";
import {
  AUDIT_STATUSES,
  type AuditStatus,
  MEDIA_OWNER_BASE_PATH,
  type MediaOwnerCreative,
} from "../../model/wire.js";
import { ok, pathObject, type Reply, type RequestContext, type Route, route, wrote } from "../context.js";
import { Issues } from "../errors.js";
import { checkKeys, readIdList, readObject, readString } from "../fields.js";
import { type ListSpec, parseListQuery, runList } from "../listing.js";
import { type AuditRecord, type CreativeRecord, instant, type Store } from "../store.js";
import { getNamed, listNamed, NETWORK_FIELDS } from "./advertisers.js";
import { readBody } from "./batch.js";

interface MarketEntry {
  id: string;
  start_date: string;
  end_date: string;
  markets: string[];
}

const MARKETS_SPEC: ListSpec<MarketEntry> = {
  order: {
    start_date: (a, b) => instant(a.start_date) - instant(b.start_date),
    end_date: (a, b) => instant(a.end_date) - instant(b.end_date),
  },
};

function creativeCampaigns(ctx: RequestContext): Reply {
  const creative = pathObject(ctx, (id) => ctx.store.creatives.get(id));
  const query = parseListQuery(ctx.query, MARKETS_SPEC);
  const entries: MarketEntry[] = creative.campaign_ids.flatMap((id) => {
    const c = ctx.store.campaigns.get(id);
    // The market names are not modelled; the emulator names the insertion order's market.
    return c
      ? [
          {
            id: c.id,
            start_date: c.start_time,
            end_date: c.end_time,
            markets: [`Market of insertion order ${c.insertion_order_id}`],
          },
        ]
      : [];
  });
  const { items, total } = runList(new Map(entries.map((e) => [e.id, e])), query, MARKETS_SPEC);
  return ok({ campaigns: items.map(({ id: _id, ...entry }) => entry), total_size: total });
}

/** The network a user reviews for: the seed's `network_id`, else the lowest network id. */
function reviewerNetwork(store: Store, ctx: RequestContext): string | undefined {
  if (ctx.user?.network_id !== undefined && store.networks.has(ctx.user.network_id))
    return ctx.user.network_id;
  return store.networks.keys().next().value;
}

export function mediaOwnerView(
  creative: CreativeRecord,
  audit: AuditRecord,
  seatId: string,
  updateTime: string,
): MediaOwnerCreative {
  return {
    id: creative.id,
    audit: {
      status: audit.status,
      message: audit.message,
      category_ids: [...audit.category_ids],
      tag_ids: [...audit.tag_ids],
      create_time: audit.create_time,
      last_reviewed: audit.last_reviewed,
      last_reviewer: audit.last_reviewer,
    },
    external_id: `ext-${creative.id}`,
    network_id: audit.network_id,
    name: creative.name,
    processing_status: creative.processing_status,
    advertiser_id: creative.advertiser_id,
    thumbnail_url: creative.thumbnail_url,
    duration_ms: creative.duration_ms,
    seat_id: seatId,
    bidder_id: "1",
    max_assets_per_day: 0,
    type: creative.type,
    update_time: updateTime,
    archived: creative.archived,
  };
}

function audit(ctx: RequestContext): Reply {
  const creative = pathObject(ctx, (id) => ctx.store.creatives.get(id));
  const issues = new Issues();
  const body = readBody(ctx.json());
  checkKeys(issues, "", body, { writable: ["audit"] });
  if (body.audit === undefined) issues.add("audit", "is required");
  const input = body.audit === undefined ? undefined : readObject(issues, "audit", body.audit);
  let status: AuditStatus | undefined;
  let message = "";
  let categories: string[] | undefined;
  let tags: string[] | undefined;
  if (input) {
    checkKeys(issues, "audit", input, { writable: ["status", "message", "category_ids", "tag_ids"] });
    if (input.status === undefined) issues.add("audit.status", "is required");
    else if (!AUDIT_STATUSES.includes(input.status as AuditStatus)) {
      issues.add("audit.status", `must be one of ${AUDIT_STATUSES.join(", ")}`);
    } else status = input.status as AuditStatus;
    if (input.message !== undefined)
      message = readString(issues, "audit.message", input.message, { max: 2000 }) ?? "";
    if (input.category_ids !== undefined) {
      categories = readIdList(issues, "audit.category_ids", input.category_ids);
      for (const id of categories ?? []) {
        if (!ctx.store.categories.has(id)) issues.add("audit.category_ids", `category ${id} does not exist`);
      }
    }
    if (input.tag_ids !== undefined) tags = readIdList(issues, "audit.tag_ids", input.tag_ids);
  }
  const networkId = reviewerNetwork(ctx.store, ctx);
  if (networkId === undefined)
    issues.add("audit", "no network to review for: the emulator's seed has no networks");
  issues.throwIfAny();
  const now = Time.fromMillis(ctx.now);
  const previous = creative.audits.find((a) => a.network_id === networkId);
  const record: AuditRecord = {
    network_id: networkId!,
    status: status!,
    message,
    last_reviewed: now,
    category_ids: categories ?? previous?.category_ids ?? [...creative.category_ids],
    tag_ids: tags ?? previous?.tag_ids ?? [],
    create_time: previous?.create_time ?? now,
    last_reviewer: ctx.user?.email ?? "",
  };
  const audits = creative.audits.filter((a) => a.network_id !== networkId);
  audits.push(record);
  audits.sort((a, b) => (a.network_id < b.network_id ? -1 : 1));
  const next = { ...creative, audits };
  ctx.store.creatives.set(next.id, next);
  return wrote(mediaOwnerView(next, record, next.seat_id, now));
}

const BASE = MEDIA_OWNER_BASE_PATH;

export const mediaOwnerRoutes: Route[] = [
  route("GET", `${BASE}/creatives/:id/campaigns`, creativeCampaigns),
  route("PATCH", `${BASE}/creatives/:id`, audit),
  route("GET", `${BASE}/creative_categories/:id`, (ctx) => getNamed(ctx, ctx.store.categories)),
  route("GET", `${BASE}/networks`, (ctx) => listNamed(ctx, "networks", ctx.store.networks, NETWORK_FIELDS)),
];
