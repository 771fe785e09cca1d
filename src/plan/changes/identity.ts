/** Which live campaign each desired one is (ARCHITECTURE.md#identity), for the planner and the reader. */
import type { DesiredCampaign, DesiredInsertionOrder } from "../../model/desired.js";
import type { Campaign } from "../../model/wire.js";
import { finding } from "../finding-catalogue.js";
import type { LiveIndex } from "../live-index.js";
import type { Finding } from "../types.js";

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

/** `live` holds every live campaign read, to say where a misplaced pinned id lives. */
export function matchCampaigns(io: DesiredInsertionOrder, live: LiveIndex): IdentityResult {
  const findings: Finding[] = [];
  const claimed = new Set<string>();
  const matches = io.campaigns.map((desired): CampaignMatch => {
    const address = campaignAddress(io.id, desired.name);
    const refuse = (made: Finding): CampaignMatch => {
      findings.push(made);
      return { desired, status: "error" };
    };
    const idSource = desired.fieldSources.id ?? desired.source;
    const nameSource = desired.fieldSources.name ?? desired.source;
    if (desired.id !== undefined) {
      const campaign = live.campaigns.get(desired.id);
      if (!campaign) {
        return refuse(
          finding("DOOH003", `campaign ${desired.id} does not exist: remove the id to create it`, {
            address,
            source: idSource,
          }),
        );
      }
      if (campaign.insertion_order_id !== io.id) {
        return refuse(
          finding(
            "DOOH004",
            `campaign ${desired.id} belongs to insertion order ${campaign.insertion_order_id}, not ${io.id}: move it under that insertion order or fix the id`,
            { address, source: idSource },
          ),
        );
      }
      if (campaign.name !== desired.name) {
        return refuse(
          finding(
            "DOOH005",
            `campaign ${desired.id} is named "${campaign.name}" live; names cannot be changed (see docs/assumptions.md#g2): write name: "${campaign.name}"`,
            { address, source: nameSource },
          ),
        );
      }
      claimed.add(campaign.id);
      return { desired, status: "matched", live: campaign };
    }
    const candidates = live.campaignsNamed(io.id, desired.name);
    if (candidates.length > 1) {
      return refuse(
        finding(
          "DOOH002",
          `${candidates.length} live campaigns of insertion order ${io.id} are named "${desired.name}" (ids ${candidates.map((c) => c.id).join(", ")}): add id to say which one`,
          { address, source: nameSource },
        ),
      );
    }
    const campaign = candidates[0];
    if (campaign) {
      claimed.add(campaign.id);
      return { desired, status: "matched", live: campaign };
    }
    return { desired, status: "new" };
  });
  // A campaign whose match failed is not "unmanaged": the config does mean to manage it.
  const erroredNames = new Set(matches.filter((m) => m.status === "error").map((m) => m.desired.name));
  const unmanaged = live.campaignsOf(io.id).filter((c) => !claimed.has(c.id) && !erroredNames.has(c.name));
  return { matches, unmanaged, findings };
}
