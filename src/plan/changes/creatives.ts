/**
 * Creative associations and properties (G6): a campaign's `creatives` is exactly its set, and a
 * creative's PATCH carries all its `campaign_ids`, unmanaged campaigns' untouched.
 */
import type { DesiredCampaign, DesiredCreative, DesiredState } from "../../model/desired.js";
import { CREATIVE_FIELDS } from "../../model/resource-fields.js";
import { compareIds, sortedIds } from "../../model/targeting.js";
import type { Advertiser, Creative, InsertionOrder } from "../../model/wire.js";
import { finding } from "../finding-catalogue.js";
import type { LiveIndex } from "../live-index.js";
import type { CampaignRef } from "../types.js";
import { diffFields, patchOf } from "./compare.js";
import { campaignAddress } from "./identity.js";
import type { Scope } from "./scope.js";
import type { Context, CreativeWork } from "./work.js";

interface LedgerEntry {
  add: string[];
  remove: Set<string>;
  changeIds: string[];
}
export type CreativeLedger = Map<string, LedgerEntry>;

function entry(ledger: CreativeLedger, creativeId: string): LedgerEntry {
  let found = ledger.get(creativeId);
  if (!found) {
    found = { add: [], remove: new Set(), changeIds: [] };
    ledger.set(creativeId, found);
  }
  return found;
}

function advertiserLabel(advertisers: readonly Advertiser[], id: string): string {
  const advertiser = advertisers.find((a) => a.id === id);
  return advertiser ? `${id} (${advertiser.name})` : id;
}

export function associationChanges(
  ctx: Context,
  input: {
    ledger: CreativeLedger;
    io: InsertionOrder;
    desired: DesiredCampaign;
    ref: CampaignRef;
    campaignKey: string;
    live: LiveIndex;
    advertisers: readonly Advertiser[];
  },
): void {
  const { desired, io, ref, campaignKey } = input;
  const want = new Set(desired.creatives ?? []);
  const have = new Set(ref.campaign_id ? input.live.creativesOf(ref.campaign_id).map((c) => c.id) : []);
  const address = campaignAddress(io.id, desired.name);
  const source = desired.fieldSources.creatives ?? desired.source;
  /** Plans one association change and notes it in the creative's ledger entry, returned for its side. */
  const change = (kind: "associate_creative" | "dissociate_creative", creativeId: string): LedgerEntry => {
    const id = ctx.nextId();
    ctx.changes.push({ kind, id, address, source, creative_id: creativeId, campaign: ref });
    const e = entry(input.ledger, creativeId);
    e.changeIds.push(id);
    return e;
  };
  for (const creativeId of sortedIds([...want])) {
    if (have.has(creativeId)) continue;
    const creative = input.live.creatives.get(creativeId);
    if (!creative) {
      ctx.findings.push(
        finding("DOOH007", `creative ${creativeId} does not exist: check the id`, {
          address,
          source,
        }),
      );
      continue;
    }
    if (creative.archived) {
      ctx.findings.push(
        finding(
          "DOOH008",
          `creative ${creativeId} is archived and cannot be associated with a campaign (see docs/assumptions.md#g6): remove it from creatives`,
          { address, source },
        ),
      );
      continue;
    }
    if (creative.advertiser_id !== io.advertiser_id) {
      ctx.findings.push(
        finding(
          "DOOH601",
          `creative ${creativeId} belongs to advertiser ${advertiserLabel(input.advertisers, creative.advertiser_id)} but insertion order ${io.id} to advertiser ${advertiserLabel(input.advertisers, io.advertiser_id)}; the DSP refuses the association (see docs/assumptions.md#g6)`,
          { address, source },
        ),
      );
      continue;
    }
    change("associate_creative", creativeId).add.push(campaignKey);
  }
  for (const creativeId of sortedIds([...have])) {
    if (want.has(creativeId)) continue;
    change("dissociate_creative", creativeId).remove.add(campaignKey);
  }
}

/** G6 rule 5: a category a creative would gain must exist (else a 422 refuses the batch): DOOH010. */
function unknownCategories(
  ctx: Context,
  desired: DesiredCreative,
  live: Creative,
  categories: ReadonlySet<string> | undefined,
): boolean {
  if (categories === undefined || desired.fields.category_ids === undefined) return false;
  const have = new Set(live.category_ids);
  const unknown = sortedIds(desired.fields.category_ids.filter((id) => !have.has(id) && !categories.has(id)));
  for (const id of unknown) {
    ctx.findings.push(
      finding(
        "DOOH010",
        `creative ${desired.id}: category ${id} in category_ids does not exist (see docs/assumptions.md#g6): use the id of an existing creative category (GET /creative_categories)`,
        { address: `creative.${desired.id}`, source: desired.fieldSources.category_ids ?? desired.source },
      ),
    );
  }
  return unknown.length > 0;
}

/** Placeholders of new campaigns sort after real ids, in change order. */
function campaignIdOrder(a: string, b: string): number {
  const pa = a.startsWith("<");
  const pb = b.startsWith("<");
  if (pa !== pb) return pa ? 1 : -1;
  if (pa) return compareIds(a.slice(6, -1), b.slice(6, -1));
  return compareIds(a, b);
}

export function creativeWork(
  ctx: Context,
  input: {
    desired: DesiredState;
    scope: Scope;
    ledger: CreativeLedger;
    live: LiveIndex;
    /** Existing categories among those a creative would gain; undefined when none were read. */
    categories: ReadonlySet<string> | undefined;
  },
): CreativeWork[] {
  const work = new Map<string, CreativeWork>();
  for (const [creativeId, e] of input.ledger) {
    const live = input.live.creatives.get(creativeId)!;
    const ids = live.campaign_ids.filter((id) => !e.remove.has(id));
    const campaignIds = [...new Set([...ids, ...e.add])].sort(campaignIdOrder);
    work.set(creativeId, {
      id: creativeId,
      patch: { campaign_ids: campaignIds },
      changeIds: [...e.changeIds],
    });
  }
  for (const desired of input.desired.creatives) {
    if (!input.scope.all && !input.scope.creatives.has(desired.id)) continue;
    const live = input.live.creatives.get(desired.id);
    const address = `creative.${desired.id}`;
    if (!live) {
      ctx.findings.push(
        finding("DOOH007", `creative ${desired.id} does not exist: check the id`, {
          address,
          source: desired.source,
        }),
      );
      continue;
    }
    if (unknownCategories(ctx, desired, live, input.categories)) continue;
    const fields = diffFields(CREATIVE_FIELDS, desired.fields, live, desired.fieldSources);
    if (fields.length === 0) continue;
    const id = ctx.nextId();
    ctx.changes.push({
      kind: "update_creative",
      id,
      address,
      source: desired.source,
      creative_id: desired.id,
      fields,
    });
    const item = work.get(desired.id) ?? { id: desired.id, patch: {}, changeIds: [] };
    Object.assign(item.patch, patchOf(CREATIVE_FIELDS, desired.fields, fields));
    item.changeIds.push(id);
    work.set(desired.id, item);
  }
  return [...work.values()].sort((a, b) => compareIds(a.id, b.id));
}
