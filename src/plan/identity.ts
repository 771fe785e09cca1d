/**
 * Which live campaign each desired campaign is (design.md, Identity): its `id` when pinned,
 * else its `name` within its insertion order. The reader uses it too, to know which live
 * campaigns the config manages before reading their targetings and creatives.
 */
import type { DesiredCampaign, DesiredInsertionOrder } from "../model/desired.js";
import type { Campaign } from "../model/wire.js";
import { finding } from "./findings.js";
import type { Finding } from "./types.js";

export interface CampaignMatch {
  desired: DesiredCampaign;
  /** `matched`: `live` is the campaign; `new`: it will be created; `error`: see findings. */
  status: "matched" | "new" | "error";
  live?: Campaign;
}

export interface IdentityResult {
  matches: CampaignMatch[];
  /** Live campaigns of the insertion order the config does not list. */
  unmanaged: Campaign[];
  findings: Finding[];
}

export function campaignAddress(insertionOrderId: string, name: string): string {
  return `campaign.${insertionOrderId}/${name}`;
}

/**
 * @param ioCampaigns live campaigns of this insertion order, in id order
 * @param campaignsById every live campaign read, to say where a misplaced pinned id lives
 */
export function matchCampaigns(
  io: DesiredInsertionOrder,
  ioCampaigns: readonly Campaign[],
  campaignsById: ReadonlyMap<string, Campaign>,
): IdentityResult {
  const byName = new Map<string, Campaign[]>();
  for (const campaign of ioCampaigns) {
    const list = byName.get(campaign.name);
    if (list) list.push(campaign);
    else byName.set(campaign.name, [campaign]);
  }
  const findings: Finding[] = [];
  const claimed = new Set<string>();
  const matches = io.campaigns.map((desired): CampaignMatch => {
    const address = campaignAddress(io.id, desired.name);
    const source = desired.fieldSources.id ?? desired.source;
    if (desired.id !== undefined) {
      const live = campaignsById.get(desired.id);
      if (!live) {
        findings.push(
          finding("DOOH003", `campaign ${desired.id} does not exist: remove the id to create it`, {
            address,
            source,
          }),
        );
        return { desired, status: "error" };
      }
      if (live.insertion_order_id !== io.id) {
        findings.push(
          finding(
            "DOOH004",
            `campaign ${desired.id} belongs to insertion order ${live.insertion_order_id}, not ${io.id}: move it under that insertion order or fix the id`,
            { address, source },
          ),
        );
        return { desired, status: "error" };
      }
      if (live.name !== desired.name) {
        findings.push(
          finding(
            "DOOH005",
            `campaign ${desired.id} is named "${live.name}" live; names cannot be changed (see docs/assumptions.md#g2): write name: "${live.name}"`,
            { address, source: desired.fieldSources.name ?? desired.source },
          ),
        );
        return { desired, status: "error" };
      }
      claimed.add(live.id);
      return { desired, status: "matched", live };
    }
    const candidates = byName.get(desired.name) ?? [];
    if (candidates.length > 1) {
      findings.push(
        finding(
          "DOOH002",
          `${candidates.length} live campaigns of insertion order ${io.id} are named "${desired.name}" (ids ${candidates.map((c) => c.id).join(", ")}): add id to say which one`,
          { address, source: desired.fieldSources.name ?? desired.source },
        ),
      );
      return { desired, status: "error" };
    }
    const live = candidates[0];
    if (live) {
      claimed.add(live.id);
      return { desired, status: "matched", live };
    }
    return { desired, status: "new" };
  });
  // A campaign whose match failed is not "unmanaged": the config does mean to manage it.
  const erroredNames = new Set(matches.filter((m) => m.status === "error").map((m) => m.desired.name));
  const unmanaged = ioCampaigns.filter((c) => !claimed.has(c.id) && !erroredNames.has(c.name));
  return { matches, unmanaged, findings };
}
