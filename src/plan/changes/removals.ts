/**
 * Campaigns leaving the config, or created beside a near namesake: the API can neither delete nor
 * rename one (G2), so both leave a live campaign running.
 */
import type { DesiredCampaign, DesiredInsertionOrder } from "../../model/desired.js";
import type { Campaign } from "../../model/wire.js";
import { finding } from "../finding-catalogue.js";
import type { ChangedScope, Finding } from "../types.js";
import { campaignAddress } from "./identity.js";
import type { Scope } from "./scope.js";

type Removed = ChangedScope["removed_campaigns"][number];

function isRemoved(removed: Removed, campaign: Campaign): boolean {
  return removed.id !== undefined ? removed.id === campaign.id : removed.name === campaign.name;
}

/**
 * `--changed-since` with `unmanaged_campaigns: deactivate`: a removed block's campaign, or every
 * unmanaged one when the insertion order changed (its policy may just have been set).
 */
export function changedDeactivation(scope: Scope, insertionOrderId: string, campaign: Campaign): boolean {
  const changed = scope.changed;
  if (!changed) return false;
  if (changed.insertionOrders.has(insertionOrderId)) return true;
  return changed.scope.removed_campaigns.some(
    (r) => r.insertion_order_id === insertionOrderId && isRemoved(r, campaign),
  );
}

/**
 * DOOH011 for a removed block whose campaign stays live; DOOH012 for a rename (a block removed
 * and one added in the same insertion order): the API creates the new campaign beside the old.
 * @param unmanaged live campaigns of the insertion order the config does not list
 */
export function removalFindings(
  scope: ChangedScope,
  io: DesiredInsertionOrder,
  unmanaged: readonly Campaign[],
): Finding[] {
  const removed = scope.removed_campaigns.filter((r) => r.insertion_order_id === io.id);
  if (removed.length === 0) return [];
  const added = scope.campaigns.filter((c) => c.insertion_order_id === io.id && c.added);
  const deactivate = io.unmanagedCampaigns === "deactivate";
  const findings: Finding[] = [];
  removed.forEach((r, i) => {
    const live = unmanaged.find((c) => isRemoved(r, c));
    if (!live) return; // never created, or declared again (pinned under its id): nothing stays behind
    const successor = added[i];
    const desired = successor && io.campaigns.find((c) => c.name === successor.name);
    const what = `campaign ${live.id} "${live.name}" of insertion order ${io.id}`;
    if (successor && desired) {
      const fate = deactivate
        ? `"${live.name}" is deactivated (unmanaged_campaigns: deactivate) and its delivery stays with id ${live.id}`
        : `"${live.name}"${live.active ? " keeps running next to it" : " stays as it is"}: keep the old name, or set unmanaged_campaigns: deactivate to stop it`;
      findings.push(
        finding(
          "DOOH012",
          `${what} was renamed to "${successor.name}" since ${scope.since}: the API cannot rename a campaign (G2), so "${successor.name}" is created and ${fate}`,
          {
            address: campaignAddress(io.id, successor.name),
            source: desired.fieldSources.name ?? desired.source,
          },
        ),
      );
      return;
    }
    if (deactivate || !live.active) return; // deactivated by this plan (DOOH101), or not live
    findings.push(
      finding(
        "DOOH011",
        `${what} was removed from the config since ${scope.since} but stays live: doohctl never deletes; set unmanaged_campaigns: deactivate on the insertion order to deactivate it, or declare it with active: false`,
        { address: campaignAddress(io.id, live.name), source: io.source },
      ),
    );
  });
  return findings;
}

/** Unicode NFC, trimmed, case-folded (upper then lower folds `ß` and `ss` alike). */
function foldName(name: string): string {
  return name.normalize("NFC").trim().toUpperCase().toLowerCase().normalize("NFC");
}

/** DOOH013: a campaign to create whose name only differs from a live one's by form, case or spaces. */
export function nearDuplicateNames(
  insertionOrderId: string,
  desired: DesiredCampaign,
  ioCampaigns: readonly Campaign[],
): Finding[] {
  const folded = foldName(desired.name);
  const twin = ioCampaigns.find((c) => c.name !== desired.name && foldName(c.name) === folded);
  if (!twin) return [];
  return [
    finding(
      "DOOH013",
      `campaign "${desired.name}" would be created next to live campaign ${twin.id} "${twin.name}" of insertion order ${insertionOrderId}, whose name differs only in Unicode form, case or spaces: write the live name exactly to manage that one, or choose a clearly different name`,
      {
        address: campaignAddress(insertionOrderId, desired.name),
        source: desired.fieldSources.name ?? desired.source,
      },
    ),
  ];
}

/**
 * DOOH015: a block added since REF, without `id`, matching a live campaign by name
 * (ARCHITECTURE.md#identity): a reviewer reads it as new while the plan edits a live one.
 */
export function adoptedByName(
  scope: ChangedScope,
  insertionOrderId: string,
  desired: DesiredCampaign,
  live: Campaign,
): Finding[] {
  if (desired.id !== undefined) return [];
  const added = scope.campaigns.some(
    (c) => c.added && c.insertion_order_id === insertionOrderId && c.name === desired.name,
  );
  if (!added) return [];
  return [
    finding(
      "DOOH015",
      `campaign "${desired.name}" is new in the config since ${scope.since}, but live campaign ${live.id} "${live.name}" of insertion order ${insertionOrderId}${live.active ? " (active)" : ""} has its name, so the plan changes that campaign instead of creating one: pin id: "${live.id}" if taking it over is meant, or choose another name for a new campaign`,
      {
        address: campaignAddress(insertionOrderId, desired.name),
        source: desired.fieldSources.name ?? desired.source,
      },
    ),
  ];
}
