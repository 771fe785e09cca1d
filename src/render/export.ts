/**
 * `doohctl export`: live objects -> config YAML (docs/config.md) on which a plan reports no changes:
 * every managed field as the planner compares it, a comment per insertion order and campaign naming
 * the advertiser and flight.
 */
import { Document, isMap, isScalar, isSeq, visit, type YAMLMap, type YAMLSeq } from "yaml";
import { Money } from "../model/money.js";
import { printable } from "../model/printable.js";
import {
  CAMPAIGN_FIELDS,
  CREATIVE_FIELDS,
  type FieldKind,
  type FieldSpec,
  INSERTION_ORDER_FIELDS,
  withFlag,
} from "../model/resource-fields.js";
import { compareIds, sortedIds, Targeting } from "../model/targeting.js";
import { Time } from "../model/time.js";
import { httpUrlProblem, isHttpUrl, withoutUserinfo } from "../model/url.js";
import type { Advertiser, Campaign, Creative, InsertionOrder } from "../model/wire.js";
import type { LiveState } from "../plan/types.js";
import { yamlDocument } from "./yaml-text.js";

export interface ExportOptions {
  /** The `yaml-language-server` schema reference written on the first line. */
  schemaUrl: string;
  /** Tool version and time, for the header comment. */
  toolVersion: string;
  now: string;
}

function day(time: string): string {
  return Time.parse(time).slice(0, 10);
}

function flight(start: string, end: string): string {
  return `flight ${day(start)} to ${day(end)}`;
}

function advertiserName(advertisers: Map<string, Advertiser>, id: string): string {
  const advertiser = advertisers.get(id);
  return advertiser ? `${advertiser.name} (advertiser ${id})` : `advertiser ${id}`;
}

/** Pixel URLs the config accepts (schema `http_url`); the API's "" for none, or any other: unmanaged. */
function exportablePixelUrl(url: string | null | undefined): url is string {
  return typeof url === "string" && isHttpUrl(url);
}

/**
 * Campaigns the config cannot hold: it identifies a campaign by its name in its insertion order
 * (ARCHITECTURE.md#identity), so of two with one name only the lowest id is exported.
 */
function duplicateNames(campaigns: readonly Campaign[]): Campaign[] {
  const seen = new Set<string>();
  const dropped: Campaign[] = [];
  for (const c of [...campaigns].sort((a, b) => compareIds(a.id, b.id))) {
    const key = `${c.insertion_order_id}\u0000${c.name}`;
    if (seen.has(key)) dropped.push(c);
    seen.add(key);
  }
  return dropped;
}

/** What an export leaves out and why, one line each, for the command to warn about. */
export function exportOmissions(live: LiveState): string[] {
  const lines = duplicateNames(live.campaigns).map(
    (c) =>
      `campaign ${c.id} "${c.name}" of insertion order ${c.insertion_order_id} is not exported: another campaign there has the same name, and the config identifies campaigns by name; it stays unmanaged`,
  );
  for (const c of live.campaigns) {
    const unknown = Targeting.unknownMembers(live.targetings[c.id] ?? []);
    if (unknown.length > 0) {
      lines.push(
        `campaign ${c.id} "${c.name}": targetings not exported: they hold ${unknown.join(", ")}, which doohctl does not know, and replacing them would remove it (G14); they stay unmanaged`,
      );
    }
  }
  for (const creative of live.creatives) {
    const problem = creative.pixel_url ? httpUrlProblem(creative.pixel_url) : undefined;
    if (creative.pixel_url && problem !== undefined) {
      lines.push(
        `creative ${creative.id}: pixel_url "${withoutUserinfo(creative.pixel_url)}" ${problem}, which the config does not accept; it is left unmanaged`,
      );
    }
  }
  return lines;
}

/** A member's value as a config writes it (docs/config.md); undefined: left unmanaged. */
function exportValue(kind: FieldKind, value: unknown): unknown {
  if (value === null) return null;
  switch (kind) {
    case "time":
      return Time.parse(value as string);
    case "money":
      return Money.format(value as Money);
    case "id_list":
      return sortedIds(value as string[]);
    case "url":
      return exportablePixelUrl(value as string) ? value : undefined;
    default:
      return value;
  }
}

/** The `export` members of `fields` (resource-fields.ts) of a live object, in the table's order. */
export function exportFields(fields: readonly FieldSpec[], live: object): Record<string, unknown> {
  const entry: Record<string, unknown> = {};
  for (const { name, kind } of withFlag(fields, "export")) {
    const value = exportValue(kind, (live as Record<string, unknown>)[name]);
    if (value !== undefined) entry[name] = value;
  }
  return entry;
}

export function campaignEntry(campaign: Campaign, live: LiveState, creativeIds: string[] | undefined) {
  const entry = exportFields(CAMPAIGN_FIELDS, campaign);
  const targetings = live.targetings[campaign.id];
  // G14: a list holding a member doohctl does not know stays undeclared (exportOmissions says so).
  if (targetings !== undefined && Targeting.unknownMembers(targetings).length === 0) {
    entry.targetings = Targeting.normalizeList(targetings).map(Targeting.withoutDefaults);
  }
  if (creativeIds !== undefined) entry.creatives = creativeIds;
  return entry;
}

/** Creative ids associated with each campaign, sorted; only campaigns in `campaignIds`. */
function creativesByCampaign(
  creatives: readonly Creative[],
  campaignIds: Set<string>,
): Map<string, string[]> {
  const result = new Map<string, string[]>();
  for (const creative of creatives) {
    for (const id of creative.campaign_ids) {
      if (!campaignIds.has(id)) continue;
      const list = result.get(id) ?? [];
      list.push(creative.id);
      result.set(id, list);
    }
  }
  for (const [id, list] of result) result.set(id, sortedIds(list));
  return result;
}

/** The live state as a config; creative lists are exact (empty for none), so it manages associations. */
export function renderExport(live: LiveState, options: ExportOptions): string {
  const advertisers = new Map(live.advertisers.map((a) => [a.id, a]));
  const byId = (a: { id: string }, b: { id: string }) => compareIds(a.id, b.id);
  const insertionOrders = [...live.insertionOrders].sort(byId);
  const dropped = new Set(duplicateNames(live.campaigns).map((c) => c.id));
  const exported = live.campaigns.filter((c) => !dropped.has(c.id)).sort(byId);
  const associations = creativesByCampaign(live.creatives, new Set(exported.map((c) => c.id)));
  const byInsertionOrder = new Map<string, Campaign[]>();
  for (const c of exported) {
    const list = byInsertionOrder.get(c.insertion_order_id) ?? [];
    list.push(c);
    byInsertionOrder.set(c.insertion_order_id, list);
  }
  const campaignsOf = (io: InsertionOrder) => byInsertionOrder.get(io.id) ?? [];

  const doc = new Document({
    version: 1,
    insertion_orders: insertionOrders.map((io) => ({
      ...exportFields(INSERTION_ORDER_FIELDS, io),
      campaigns: campaignsOf(io).map((c) => campaignEntry(c, live, associations.get(c.id) ?? [])),
    })),
    creatives: [...live.creatives].sort(byId).map((creative) => exportFields(CREATIVE_FIELDS, creative)),
  });
  doc.commentBefore =
    ` yaml-language-server: $schema=${printable(options.schemaUrl)}\n` +
    ` Exported by doohctl ${options.toolVersion} at ${options.now}. A plan on this file shows no changes.`;
  // A comment has no escapes: DSP names in it are shown as printable text (no line break).
  (doc.get("insertion_orders") as YAMLSeq<YAMLMap>).items.forEach((node, index) => {
    const io = insertionOrders[index]!;
    const advertiser = advertiserName(advertisers, io.advertiser_id);
    node.spaceBefore = index > 0;
    node.commentBefore = printable(` ${io.name}: ${advertiser}, ${flight(io.start_time, io.end_time)}`);
    const campaigns = campaignsOf(io);
    (node.get("campaigns") as YAMLSeq<YAMLMap>).items.forEach((campaignNode, i) => {
      const c = campaigns[i]!;
      const inactive = c.active ? "" : ", inactive";
      campaignNode.commentBefore = printable(
        ` ${advertiser}, ${flight(c.start_time, c.end_time)}${inactive}`,
      );
    });
  });
  return exportLayout(doc);
}

/**
 * Export's layout: id lists, targeting options and a flat pacing on one line
 * (`{ venue_type_ids: ["12"], exclude: true }`); `doohctl pull --new` writes its campaigns so.
 */
export function exportLayout(doc: Document): string {
  visit(doc, {
    Seq(_, node) {
      if (node.items.every((item) => isScalar(item))) node.flow = true;
    },
    Pair(_, pair) {
      const key = isScalar(pair.key) ? String(pair.key.value) : "";
      // A pacing key named `<<` would read back as a merge key: quoted, it stays a key.
      if (key === "<<" && isScalar(pair.key)) pair.key.type = "QUOTE_DOUBLE";
      if (!isMap(pair.value) || !(key.endsWith("_targeting_option") || key === "pacing")) return;
      if (pair.value.items.every((item) => isScalar(item.value) || isSeq(item.value))) pair.value.flow = true;
    },
  });
  return yamlDocument(doc, { lineWidth: 0, flowCollectionPadding: false });
}
