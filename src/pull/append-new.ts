/**
 * `pull --new`: live campaigns of declared insertion orders, undeclared and not ended, appended to
 * the order's `campaigns` list in export's form with `id` pinned (src/render/export.ts). Their
 * creatives are not read: the entry leaves associations unmanaged.
 */
import { Document, isSeq, parseDocument } from "yaml";
import type { DesiredState } from "../model/desired.js";
import { compareIds, type TargetingOptionSet } from "../model/targeting.js";
import { Time } from "../model/time.js";
import type { Campaign } from "../model/wire.js";
import { campaignAddress } from "../plan/changes/identity.js";
import type { LiveState } from "../plan/types.js";
import { campaignEntry, exportLayout } from "../render/export.js";
import { columnOf, valueRange } from "./document-edit.js";
import type { NotPulled } from "./items.js";
import type { Splice } from "./line-diff.js";
import { locate, pathSegments } from "./locate.js";

/** Live campaigns of declared insertion orders that no declared campaign matches, not ended. */
export function newCampaigns(desired: DesiredState, live: LiveState, now: number): Campaign[] {
  const found: Campaign[] = [];
  for (const io of desired.insertionOrders) {
    const ids = new Set(io.campaigns.flatMap((c) => (c.id ? [c.id] : [])));
    const names = new Set(io.campaigns.map((c) => c.name));
    for (const c of live.campaigns) {
      if (c.insertion_order_id !== io.id || ids.has(c.id) || names.has(c.name)) continue;
      if (Time.toMillis(c.end_time) <= now) continue;
      found.push(c);
    }
  }
  return found.sort((a, b) => compareIds(a.id, b.id));
}

export interface Appended {
  address: string;
  campaign_id: string;
  file: string;
}

/** The splices that append `campaigns` to their insertion orders' lists in `file`. */
export function appendSplices(input: {
  file: string;
  text: string;
  desired: DesiredState;
  campaigns: readonly Campaign[];
  targetings: ReadonlyMap<string, TargetingOptionSet[]>;
}): { splices: Splice[]; appended: Appended[]; notPulled: NotPulled[] } {
  const { file, text } = input;
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const doc = parseDocument(text);
  const result = { splices: [] as Splice[], appended: [] as Appended[], notPulled: [] as NotPulled[] };
  for (const io of input.desired.insertionOrders) {
    if (io.source.file !== file) continue;
    const mine = input.campaigns.filter((c) => c.insertion_order_id === io.id);
    if (mine.length === 0) continue;
    const list = locate(doc, pathSegments(`${io.source.path}.campaigns`));
    const address = (c: Campaign) => campaignAddress(io.id, c.name);
    if (!list || list.via || !isSeq(list.node) || list.node.flow || !list.node.range) {
      for (const c of mine) {
        result.notPulled.push({
          address: address(c),
          file,
          line: io.source.line,
          reason: `live campaign ${c.id} is not in the config: insertion order ${io.id} has no block \`campaigns:\` list of its own to append it to; add it by hand (doohctl export shows it)`,
        });
      }
      continue;
    }
    // After the last item, before the comments and blank lines that end the list.
    const [start, end] = valueRange(list.node, text);
    const column = columnOf(text, start);
    const lead = text[end - 1] === "\n" ? "" : eol;
    const live = { targetings: Object.fromEntries(input.targetings) } as unknown as LiveState;
    const entries = mine.map((c) => campaignEntry(c, live, undefined));
    const block = exportLayout(new Document(entries))
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => `${" ".repeat(column)}${line}`)
      .join(eol);
    result.splices.push({ start: end, end, text: `${lead}${block}${eol}` });
    for (const c of mine) result.appended.push({ address: address(c), campaign_id: c.id, file });
  }
  return result;
}
