/**
 * The recovery record in a plan (design.md, Recovery record): a campaign an earlier apply
 * paused for a targeting change and did not reactivate is planned for reactivation, unless
 * the config declares it inactive or the apply that paused it still runs.
 */
import type { RecordedPause } from "../model/recovery.js";
import type { Campaign } from "../model/wire.js";
import { finding } from "./findings.js";
import { campaignAddress } from "./identity.js";
import { type CampaignWork, type Context, liveRef, liveWork } from "./work.js";

/**
 * The recovery record's verdict on a live campaign: reactivate it (an earlier apply paused it,
 * died, and the config does not declare it inactive), leave it to the apply that is still
 * running and will reactivate it, or nothing to do.
 */
export function recoveryOf(
  ctx: Context,
  entry: RecordedPause | undefined,
  live: Campaign,
  declaredActive: boolean | undefined,
): boolean {
  if (!entry || live.active || declaredActive === false) return false;
  const address = campaignAddress(live.insertion_order_id, live.name);
  if (entry.owner_running) {
    ctx.findings.push(
      finding(
        "DOOH203",
        `campaign ${live.id} "${live.name}" is paused by apply ${entry.apply_id}, which is still running on this machine and will reactivate it: plan again once it has finished`,
        { address },
      ),
    );
    return false;
  }
  ctx.findings.push(
    finding(
      "DOOH202",
      `reactivates campaign ${live.id} "${live.name}": apply ${entry.apply_id} (started ${entry.apply_started_at}) paused it at ${entry.paused_at} for a targeting change and stopped before reactivating it`,
      { address },
    ),
  );
  return true;
}

/**
 * A recorded campaign the config does not declare, or declares outside the plan's scope:
 * only its reactivation is planned (none when the config declares it inactive).
 */
export function reactivation(
  ctx: Context,
  live: Campaign,
  entry: RecordedPause,
  declaredActive: boolean | undefined,
): CampaignWork | undefined {
  if (!recoveryOf(ctx, entry, live, declaredActive)) return undefined;
  const id = ctx.nextId();
  ctx.changes.push({
    kind: "update_campaign",
    id,
    address: campaignAddress(live.insertion_order_id, live.name),
    campaign: liveRef(live),
    fields: [{ field: "active", before: false, after: true }],
  });
  const work = liveWork(live);
  work.finalActive = true;
  work.activate = true;
  work.activateChangeIds.push(id);
  return work;
}
