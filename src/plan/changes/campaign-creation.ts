/** A declared campaign that is not live (ARCHITECTURE.md#identity): its creation and its targetings. */
import type { DesiredCampaign, DesiredInsertionOrder } from "../../model/desired.js";
import { CAMPAIGN_FIELDS, type FieldSpec, withFlag } from "../../model/resource-fields.js";
import { Targeting } from "../../model/targeting.js";
import type { CampaignCreate } from "../../model/wire.js";
import { finding } from "../finding-catalogue.js";
import type { CampaignRef } from "../types.js";
import { createFields } from "./compare.js";
import { campaignAddress } from "./identity.js";
import { Placeholder } from "./placeholder.js";
import { type CampaignWork, type Context, emptyWork } from "./work.js";

/**
 * G3: the `POST /campaigns` item of `fields`' `create` members, or the `required` ones it lacks.
 * I2: created inactive, activated in phase 6 once its targetings and creatives are in place.
 */
export function campaignCreateItem(
  insertionOrderId: string,
  desired: Pick<DesiredCampaign, "name" | "fields">,
  fields: readonly FieldSpec[] = CAMPAIGN_FIELDS,
): { item: CampaignCreate; missing: [] } | { item: undefined; missing: string[] } {
  const values = desired.fields as Readonly<Record<string, unknown>>;
  const missing = withFlag(fields, "required")
    .map((f) => f.name)
    .filter((name) => values[name] === undefined);
  if (missing.length > 0) return { item: undefined, missing };
  const item: Record<string, unknown> = { insertion_order_id: insertionOrderId, name: desired.name };
  for (const { name } of withFlag(fields, "create"))
    if (values[name] !== undefined) item[name] = values[name];
  item.active = false;
  return { item: item as CampaignCreate, missing: [] };
}

export function campaignCreation(
  ctx: Context,
  io: DesiredInsertionOrder,
  desired: DesiredCampaign,
): CampaignWork | undefined {
  const address = campaignAddress(io.id, desired.name);
  const { item, missing } = campaignCreateItem(io.id, desired);
  if (item === undefined) {
    ctx.findings.push(
      finding(
        "DOOH006",
        `campaign "${desired.name}" does not exist in insertion order ${io.id}, so it would be created, and creation needs ${missing.join(", ")} (see docs/assumptions.md#g3): declare them, or pin the live campaign with id`,
        { address, source: desired.source },
      ),
    );
    return undefined;
  }
  const f = desired.fields;
  const changeId = ctx.nextId();
  const key = Placeholder.make(changeId);
  const work = emptyWork(key, io.id, desired.name);
  work.create = { changeId, item };
  work.finalActive = f.active === true;
  work.activate = work.finalActive;
  if (work.activate) work.activateChangeIds.push(changeId);
  work.budgetAfter = item.budget_impressions;
  const campaign: CampaignRef = { insertion_order_id: io.id, name: desired.name, create_change_id: changeId };
  ctx.changes.push({
    kind: "create_campaign",
    id: changeId,
    address,
    source: desired.source,
    campaign,
    fields: createFields(desired.fields, desired.fieldSources),
  });
  if (desired.targetings !== undefined && desired.targetings.length > 0) {
    const targetingsId = ctx.nextId();
    const after = Targeting.normalizeList(desired.targetings);
    ctx.changes.push({
      kind: "replace_targetings",
      id: targetingsId,
      address,
      source: desired.fieldSources.targetings ?? desired.source,
      campaign,
      before: [],
      after,
      added: after,
      removed: [],
      pause: false,
    });
    work.targetings = { changeId: targetingsId, body: after };
  }
  return work;
}
