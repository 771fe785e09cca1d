/**
 * The plan's changes read backwards: a declared field whose live value differs is a PullItem;
 * what a config edit cannot or must not say (a pause nobody chose) is a NotPulled with what to do.
 */
import type { DesiredCampaign, DesiredState, SourceRef } from "../model/desired.js";
import type { RecordedPause } from "../model/recovery.js";
import { type FieldKind, type FieldSpec, RESOURCES, withFlag } from "../model/resource-fields.js";
import { sortedIds, Targeting } from "../model/targeting.js";
import { isHttpUrl } from "../model/url.js";
import type { Campaign } from "../model/wire.js";
import { campaignAddress } from "../plan/changes/identity.js";
import type { FieldChange, JsonValue, LiveState, Plan } from "../plan/types.js";
import type { NotPulled, PullItem, PullValueKind } from "./items.js";

export interface PullWork {
  items: PullItem[];
  notPulled: NotPulled[];
  /** Campaigns in flight that someone paused in the DSP: listed first (docs/pull.md). */
  livePauses: { address: string; campaign_id: string; file: string; line: number }[];
}

/** How pull writes each `pull` member of the tables (resource-fields.ts), by its kind. */
const PULL_FORMS: Partial<Record<FieldKind, PullValueKind>> = {
  time: "time",
  money: "money",
  opaque: "object",
  id_list: "ids",
};
const KINDS: Record<string, PullValueKind> = Object.fromEntries(
  Object.values(RESOURCES).flatMap(({ fields }) =>
    withFlag<FieldSpec>(fields, "pull").map(({ name, kind }) => [name, PULL_FORMS[kind] ?? "scalar"]),
  ),
);

function item(
  address: string,
  field: string,
  source: SourceRef,
  config: JsonValue,
  live: JsonValue,
): PullItem {
  return {
    address,
    field,
    file: source.file,
    line: source.line,
    path: source.path,
    config,
    live,
    kind: KINDS[field] ?? "scalar",
  };
}

export function pullWork(input: {
  plan: Plan;
  desired: DesiredState;
  live: LiveState;
  recorded: readonly RecordedPause[];
}): PullWork {
  const { plan, desired, live } = input;
  const work: PullWork = { items: [], notPulled: [], livePauses: [] };
  const campaigns = new Map<string, DesiredCampaign>();
  for (const io of desired.insertionOrders) {
    for (const c of io.campaigns) campaigns.set(campaignAddress(io.id, c.name), c);
  }
  const liveCampaigns = new Map<string, Campaign>(live.campaigns.map((c) => [c.id, c]));
  const recorded = new Set(input.recorded.map((r) => r.campaign_id));
  const creativesDone = new Set<string>();
  const fields = (address: string, changes: readonly FieldChange[], campaignId?: string) => {
    for (const f of changes) {
      const recordedPause = f.field === "active" && campaignId !== undefined && recorded.has(campaignId);
      if (recordedPause) {
        // Never a pause nobody chose: an interrupted apply paused it (docs/safety.md).
        work.notPulled.push({
          address,
          field: "active",
          ...(f.source ? { file: f.source.file, line: f.source.line } : {}),
          reason: `campaign ${campaignId} was paused by an apply that did not finish (the recovery record names it): it is not pulled as active: false; run doohctl apply to reactivate it`,
        });
        continue;
      }
      if (f.source === undefined) continue;
      if (f.field === "pixel_url" && !(typeof f.before === "string" && isHttpUrl(f.before))) {
        work.notPulled.push({
          address,
          field: f.field,
          file: f.source.file,
          line: f.source.line,
          reason: "the live creative has no pixel URL a config can hold: remove pixel_url by hand, or apply",
        });
        continue;
      }
      work.items.push(item(address, f.field, f.source, f.after, f.before));
      const c = campaignId !== undefined ? liveCampaigns.get(campaignId) : undefined;
      if (f.field === "active" && f.before === false && c?.in_flight) {
        work.livePauses.push({ address, campaign_id: c.id, file: f.source.file, line: f.source.line });
      }
    }
  };
  for (const change of plan.changes) {
    switch (change.kind) {
      case "update_insertion_order":
      case "update_creative":
        fields(change.address, change.fields);
        break;
      case "update_campaign":
        fields(change.address, change.fields, change.campaign.campaign_id);
        break;
      case "replace_targetings": {
        const source = campaigns.get(change.address)?.fieldSources.targetings;
        if (source) {
          const pulled = item(
            change.address,
            "targetings",
            source,
            change.after as unknown as JsonValue,
            change.before.map(Targeting.withoutDefaults) as unknown as JsonValue,
          );
          work.items.push({ ...pulled, kind: "targetings" });
        }
        break;
      }
      case "associate_creative":
      case "dissociate_creative": {
        const desiredCampaign = campaigns.get(change.address);
        const source = desiredCampaign?.fieldSources.creatives;
        const id = change.campaign.campaign_id;
        if (!source || id === undefined || creativesDone.has(change.address)) break;
        creativesDone.add(change.address);
        const have = sortedIds(live.creatives.filter((c) => c.campaign_ids.includes(id)).map((c) => c.id));
        work.items.push({
          ...item(change.address, "creatives", source, desiredCampaign?.creatives ?? [], have),
          kind: "ids",
        });
        break;
      }
      case "create_campaign":
        work.notPulled.push({
          address: change.address,
          ...(change.source ? { file: change.source.file, line: change.source.line } : {}),
          reason: "declared in the config and not live: apply creates it, or remove it from the config",
        });
        break;
      case "deactivate_campaign":
        work.notPulled.push({
          address: change.address,
          reason: `live campaign ${change.campaign.campaign_id} is not in the config (unmanaged_campaigns: deactivate): pull --new adds it while its flight has not ended, or apply deactivates it`,
        });
        break;
      default: {
        const never: never = change;
        throw new Error(`internal: unknown change ${(never as { kind: string }).kind}`);
      }
    }
  }
  return work;
}
