/**
 * Fields the API shows that a config never declares, copied from an answer or an old export:
 * each says why, and what to do, rather than "unknown key". Keyed by definition title.
 */
const READ_ONLY = "remove it";

const API_OWNED: Record<string, Record<string, string>> = {
  "Insertion order": {
    name: `an insertion order's name is read-only (see docs/assumptions.md#g1): doohctl adopts it by id; ${READ_ONLY}`,
    advertiser_id: `an insertion order's advertiser is set when it is contracted and is read-only (see docs/assumptions.md#g1); ${READ_ONLY}`,
  },
  Campaign: {
    insertion_order_id:
      "a campaign belongs to the insertion order it is listed under: remove insertion_order_id and list the campaign under that insertion order's campaigns",
    in_flight: `in_flight is read-only: the DSP derives it from start_time and end_time (see docs/assumptions.md#g2); ${READ_ONLY}`,
    progress: `progress is read-only: it is the delivery the DSP reports (see docs/assumptions.md#g2); ${READ_ONLY}`,
  },
  Creative: {
    campaign_ids:
      "a creative's campaigns are declared on the campaigns: remove campaign_ids and list this creative's id under each campaign's creatives",
    insertion_order_ids: `a creative's insertion orders follow from its campaigns (see docs/assumptions.md#g6); ${READ_ONLY}`,
  },
};

/** Creative fields the DSP's creative update cannot change (G6): only their owner's tools can. */
const CREATIVE_ASSET_FIELDS = [
  "name",
  "advertiser_id",
  "type",
  "asset",
  "duration_ms",
  "requires_audio",
  "thumbnail_url",
  "archived",
  "processing_status",
  "create_time",
  "audits",
];

/** Why `key` is not declared on a `definition` (its schema title); undefined for other keys. */
export function apiOwnedKey(definition: unknown, key: string): string | undefined {
  if (typeof definition !== "string") return undefined;
  // Own keys only: a config key named `toString` or `__proto__` is unknown, not inherited.
  const fields = Object.hasOwn(API_OWNED, definition) ? API_OWNED[definition] : undefined;
  if (fields !== undefined && Object.hasOwn(fields, key)) return fields[key];
  if (definition === "Creative" && CREATIVE_ASSET_FIELDS.includes(key)) {
    return `doohctl manages a creative's category_ids and pixel_url only; the API does not change its ${key} (see docs/assumptions.md#g6): ${READ_ONLY}`;
  }
  return undefined;
}
