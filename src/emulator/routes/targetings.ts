/**
 * G5: a campaign's targetings, read and replaced whole, with the strict removal rule: while
 * a campaign is active a PUT must keep every option set it has (compared normalized).
 */
import { Targeting, type TargetingOptionSet } from "../../model/targeting.js";
import { TARGETING_OPTIONS } from "../../model/targeting-members.js";
import { DSP_BASE_PATH } from "../../model/wire.js";
import { ok, pathObject, type Reply, type RequestContext, type Route, route, wrote } from "../context.js";
import { Issues } from "../errors.js";
import { checkKeys, readBoolean, readIdList, readObject } from "../fields.js";
import { parseFlags } from "../listing.js";
import { readBody } from "./batch.js";

/** Reads one option set; shared with seed validation. Returns the normalized set or undefined. */
export function readOptionSet(issues: Issues, prefix: string, raw: unknown): TargetingOptionSet | undefined {
  const body = readObject(issues, prefix, raw);
  if (!body) return undefined;
  const before = issues.size;
  // The table of members and their types is the model's (src/model/targeting-members.ts);
  // how a body is checked against it is the emulator's own.
  checkKeys(issues, prefix, body, { writable: TARGETING_OPTIONS.map(({ member }) => member) });
  const set: Record<string, unknown> = {};
  for (const { member, ids: list, exclude: takesExclude } of TARGETING_OPTIONS) {
    const idsKey = list.name;
    if (body[member] === undefined) continue;
    const at = `${prefix}.${member}`;
    const option = readObject(issues, at, body[member]);
    if (!option) continue;
    // G5: a deal option has no exclude.
    checkKeys(issues, at, option, { writable: takesExclude ? [idsKey, "exclude"] : [idsKey] });
    const ids =
      option[idsKey] === undefined
        ? issues.add(`${at}.${idsKey}`, "is required")
        : readIdList(issues, `${at}.${idsKey}`, option[idsKey], {
            nonEmpty: true,
            numeric: list.of === "numeric",
          });
    const exclude =
      option.exclude === undefined ? false : readBoolean(issues, `${at}.exclude`, option.exclude);
    if (ids) set[member] = takesExclude ? { [idsKey]: ids, exclude } : { [idsKey]: ids };
  }
  if (Object.keys(body).length === 0) issues.add(prefix, "must hold at least one targeting option");
  if (issues.size > before) return undefined;
  return Targeting.normalizeSet(set as TargetingOptionSet);
}

/** Reads a whole targeting list (normalized, duplicates dropped), or undefined on any problem. */
export function readTargetingList(
  issues: Issues,
  field: string,
  raw: unknown,
): TargetingOptionSet[] | undefined {
  if (!Array.isArray(raw)) {
    issues.add(field, "must be an array of targeting option sets");
    return undefined;
  }
  if (raw.length > 1000) {
    issues.add(field, "must hold at most 1000 option sets");
    return undefined;
  }
  const before = issues.size;
  const sets = raw.map((item, index) => readOptionSet(issues, `${field}[${index}]`, item));
  if (issues.size > before) return undefined;
  return Targeting.normalizeList(sets as TargetingOptionSet[]);
}

function get(ctx: RequestContext): Reply {
  parseFlags(ctx.query);
  const campaign = pathObject(ctx, (id) => ctx.store.campaigns.get(id));
  return ok({ targetings: structuredClone(ctx.store.targetings.get(campaign.id) ?? []) });
}

function put(ctx: RequestContext): Reply {
  const campaign = pathObject(ctx, (id) => ctx.store.campaigns.get(id));
  const issues = new Issues();
  const body = readBody(ctx.json());
  checkKeys(issues, "", body, { writable: ["targetings"] });
  if (body.targetings === undefined) issues.add("targetings", "is required");
  const next =
    body.targetings === undefined ? undefined : readTargetingList(issues, "targetings", body.targetings);
  issues.throwIfAny();
  const current = ctx.store.targetings.get(campaign.id) ?? [];
  if (campaign.active && Targeting.difference(current, next!).removed.length > 0) {
    issues.add("targetings", "cannot remove targetings from an active campaign");
    issues.throwIfAny();
  }
  ctx.store.targetings.set(campaign.id, next!);
  return wrote({ targetings: structuredClone(next!) });
}

const PATH = `${DSP_BASE_PATH}/campaigns/:id/targetings`;

export const targetingRoutes: Route[] = [route("GET", PATH, get), route("PUT", PATH, put)];
