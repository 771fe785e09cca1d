/** Changes to a live campaign: its fields, its targetings (paused when losing a set, G5/I1), deactivation. */
import type { DesiredCampaign, DesiredInsertionOrder } from "../../model/desired.js";
import type { RecordedPause } from "../../model/recovery.js";
import { CAMPAIGN_FIELDS } from "../../model/resource-fields.js";
import { Targeting, type TargetingOptionSet } from "../../model/targeting.js";
import type { Campaign } from "../../model/wire.js";
import { finding } from "../finding-catalogue.js";
import type { CampaignRef, LiveState } from "../types.js";
import { diffFields, patchOf } from "./compare.js";
import { campaignAddress } from "./identity.js";
import { recoveryOf } from "./recovered.js";
import { type CampaignWork, type Context, emptyWork, liveRef, liveWork } from "./work.js";

export function campaignUpdate(
  ctx: Context,
  input: {
    io: DesiredInsertionOrder;
    desired: DesiredCampaign;
    live: Campaign;
    state: LiveState;
    normalizedLive: Map<string, TargetingOptionSet[]>;
    recorded: RecordedPause | undefined;
  },
): CampaignWork {
  const { io, desired, live, state, normalizedLive } = input;
  const address = campaignAddress(io.id, desired.name);
  const campaign: CampaignRef = { insertion_order_id: io.id, name: desired.name, campaign_id: live.id };
  const work = emptyWork(live.id, io.id, desired.name);
  const reactivate = recoveryOf(ctx, input.recorded, live, desired.fields.active);
  work.liveActive = live.active;
  work.finalActive = desired.fields.active ?? (live.active || reactivate);
  work.budgetBefore = live.budget_impressions;
  work.budgetAfter = desired.fields.budget_impressions ?? live.budget_impressions;
  const fields = diffFields(CAMPAIGN_FIELDS, desired.fields, live, desired.fieldSources);
  if (reactivate && !fields.some((f) => f.field === "active")) {
    fields.push({ field: "active", before: false, after: true });
  }
  if (fields.length > 0) {
    const id = ctx.nextId();
    ctx.changes.push({ kind: "update_campaign", id, address, source: desired.source, campaign, fields });
    // `active` goes through the phases (deactivate, activate), never with the other fields.
    Object.assign(work.patch, patchOf(CAMPAIGN_FIELDS, desired.fields, fields, ["active"]));
    if (Object.keys(work.patch).length > 0) work.patchChangeIds.push(id);
    if (live.active && !work.finalActive) {
      work.deactivate = true;
      if (!work.patchChangeIds.includes(id)) work.patchChangeIds.push(id);
    }
    if (!live.active && work.finalActive) {
      work.activate = true;
      work.activateChangeIds.push(id);
    }
  }
  if (desired.targetings !== undefined) {
    const before = state.targetings[live.id];
    if (before === undefined) {
      throw new Error(`internal: targetings of campaign ${live.id} were not read; the reader must read them`);
    }
    const was = Targeting.keyed(before);
    normalizedLive.set(live.id, was.sets);
    const want = Targeting.keyed(desired.targetings);
    // G14: compared on known members only; a PUT would remove what doohctl does not know.
    const unknown = Targeting.unknownMembers(before);
    if (!Targeting.keyedEquals(was, want) && unknown.length > 0) {
      ctx.findings.push(
        finding(
          "DOOH014",
          `campaign ${live.id} "${desired.name}": its live targetings hold ${unknown.join(", ")}, which doohctl does not know; replacing the list would remove ${unknown.length === 1 ? "it" : "them"} and broaden delivery. Leave \`targetings\` undeclared for this campaign and change them in the DSP's own interface (see docs/assumptions.md#g14)`,
          { address, source: desired.fieldSources.targetings ?? desired.source },
        ),
      );
    } else if (!Targeting.keyedEquals(was, want)) {
      const { added, removed } = Targeting.keyedDifference(was, want);
      // G5/I1: an active campaign cannot lose or change an option set; additions alone are fine.
      const pause = live.active && work.finalActive && removed.length > 0;
      const id = ctx.nextId();
      const after = want.sets;
      ctx.changes.push({
        kind: "replace_targetings",
        id,
        address,
        source: desired.fieldSources.targetings ?? desired.source,
        campaign,
        before: was.sets,
        after,
        added,
        removed,
        pause,
      });
      work.targetings = { changeId: id, body: after };
      if (pause) {
        work.pause = true;
        work.deactivate = true;
        work.activate = true;
        work.patchChangeIds.push(id);
        work.activateChangeIds.unshift(id);
        if (desired.fields.active === undefined) {
          // Without `active` declared, a kill during the pause leaves only the recovery record
          // to say the campaign was active (docs/safety.md, Recovery record).
          ctx.findings.push(
            finding(
              "DOOH207",
              `campaign ${live.id} "${desired.name}" is paused for its targeting change and its config leaves active out: if apply is killed during the pause, only the recovery record in the state directory brings it back; declare \`active: true\` on it so that any plan, with or without that record, reactivates it`,
              { address, change_ids: [id], source: desired.source },
            ),
          );
        }
      }
    }
  }
  return work;
}

export function unmanagedDeactivation(ctx: Context, live: Campaign): CampaignWork {
  const id = ctx.nextId();
  ctx.changes.push({
    kind: "deactivate_campaign",
    id,
    address: campaignAddress(live.insertion_order_id, live.name),
    campaign: liveRef(live),
    reason: "unmanaged",
  });
  const work = liveWork(live);
  work.liveActive = true;
  work.deactivate = true;
  work.patchChangeIds.push(id);
  return work;
}
