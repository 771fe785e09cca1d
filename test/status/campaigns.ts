/**
 * Wire campaigns and creatives for the pure status tests (forecast, money): a flight of Dec 1
 * .. Jan 2 (32 days), active, in insertion order 1001, 100,000 impressions at 12.00 USD unless
 * told otherwise; spend is what was delivered at `spentAt` (default the cpm).
 */
import { Money } from "../../src/model/money.js";
import type { Campaign, Creative } from "../../src/model/wire.js";
import { buildStatusReport, type StatusInput } from "../../src/status/status.js";
import { campaignMembers } from "../helpers/builders.js";

export const THRESHOLDS = { behind_pct: 10, ended_short_pct: 5, grace_hours: 24 };

export function wire(
  fields: Partial<Campaign> & { id: string; delivered?: number; spentAt?: Money },
): Campaign {
  const { delivered = 0, spentAt, ...rest } = fields;
  const cpm = rest.cpm ?? Money.parse("12.00 USD");
  const price = spentAt ?? cpm;
  return campaignMembers({
    name: `Campaign ${fields.id}`,
    active: true,
    in_flight: true,
    end_time: "2027-01-02T00:00:00Z",
    cpm,
    progress: {
      impressions_delivered: delivered,
      spend: Money.fromNanos((Money.toNanos(price) * BigInt(delivered)) / 1000n, price.currency_code),
    },
    ...rest,
  });
}

/** An approved creative of each campaign: it can serve (src/model/creative-serving.ts). */
export function servingCreatives(ids: readonly string[]): Creative[] {
  return ids.map((id) => ({
    id: `9${id}`,
    campaign_ids: [id],
    insertion_order_ids: ["1001"],
    category_ids: [],
    advertiser_id: "1",
    create_time: "2026-10-01T00:00:00Z",
    name: `Spot ${id}`,
    thumbnail_url: "",
    pixel_url: "",
    duration_ms: 10_000,
    archived: false,
    type: "IMAGE",
    requires_audio: false,
    processing_status: "PROCESSED",
    asset: null,
    audits: [{ network_id: "1", status: "APPROVED", message: "", last_reviewed: "2026-11-20T00:00:00Z" }],
  }));
}

/** The status report of `campaigns` at `at`, each with a creative that can serve, thresholds 10/5/24. */
export function reportAt(campaigns: Campaign[], at: string, extra: Partial<StatusInput> = {}) {
  return buildStatusReport({
    campaigns,
    creatives: servingCreatives(campaigns.map((c) => c.id)),
    recorded: [],
    now: Date.parse(at),
    thresholds: THRESHOLDS,
    scope: "declared",
    ...extra,
  });
}
