/**
 * A write is done when the DSP shows it (docs/apply.md, An inconsistent result): its answer, or the
 * objects read back, is compared with what was sent by the plan's own equality; a member not taken
 * as sent stops the apply like a failed write, and the next plan shows it.
 */
import { createdItems } from "../api/endpoints.js";
import type { DspClient, SendOptions } from "../api/types.js";
import type { InconsistentMember } from "../model/apply-report.js";
import type { Dialect } from "../model/dialect.js";
import {
  CAMPAIGN_FIELDS,
  CREATIVE_FIELDS,
  type FieldSpec,
  INSERTION_ORDER_FIELDS,
} from "../model/resource-fields.js";
import { Targeting, type TargetingOptionSet } from "../model/targeting.js";
import { pacingEquals, valuesEqual } from "../plan/changes/compare.js";

type Item = Record<string, unknown>;
type Request = { method: string; path: string; body?: unknown };

/** The DSP took the write (2xx) but not as sent: each member it did not take. */
export class InconsistentResultError extends Error {
  override readonly name = "InconsistentResultError";
  readonly code = "APPLY_INCONSISTENT_RESULT";
  constructor(
    readonly members: readonly InconsistentMember[],
    /** The batch field of each member (`campaigns[3].cpm`), to trace it to the config (failure.ts). */
    readonly fields: readonly string[],
  ) {
    super(
      `the DSP accepted the request but did not apply it as sent (an inconsistent result): ${members.length === 1 ? "1 member differs" : `${members.length} members differ`}. doohctl stops here, as on a failed write: the next plan shows what did not stick`,
    );
  }
}

/** The DSP took the write (2xx), and neither its answer nor a read-back says how. */
export class ResultUnknownError extends Error {
  override readonly name = "ResultUnknownError";
  readonly code = "APPLY_RESULT_UNKNOWN";
}

/** Whether `error` is about a write the DSP accepted: applied, differently or with a result unknown. */
export function landed(error: unknown): error is InconsistentResultError | ResultUnknownError {
  return error instanceof InconsistentResultError || error instanceof ResultUnknownError;
}

/** The batch PATCHes: their body member, the resource's table and kind, how one is named and read now. */
const BATCHES = [
  {
    member: "insertion_orders",
    fields: INSERTION_ORDER_FIELDS,
    kind: "insertion_order",
    noun: "insertion order",
    read: (client: DspClient, ids: string[], options: SendOptions) => client.getInsertionOrders(ids, options),
  },
  {
    member: "campaigns",
    fields: CAMPAIGN_FIELDS,
    kind: "campaign",
    noun: "campaign",
    read: (client: DspClient, ids: string[], options: SendOptions) => client.getCampaigns(ids, options),
  },
  {
    member: "creatives",
    fields: CREATIVE_FIELDS,
    kind: "creative",
    noun: "creative",
    read: (client: DspClient, ids: string[], options: SendOptions) => client.getCreatives(ids, options),
  },
] as const;

/** The batch PATCH a path writes with, if it is one (guard.ts reads its objects the same way). */
export function batchOf(path: string) {
  return BATCHES.find((b) => path.endsWith(`/${b.member}`));
}

export const TARGETINGS_PATH = /\/campaigns\/([^/]+)\/targetings$/;

/** A body member's name in the contract: the dialect's contract number member is `contract_number`. */
function canonicalMember(batch: string, member: string, dialect: Dialect): string {
  return batch === "insertion_orders" && member === dialect.contract_number ? "contract_number" : member;
}

/** What may explain a member not taken: the decision that says the DSP takes it as sent. */
function explain(member: string, batch: string, dialect: Dialect, create: boolean): string {
  if (batch === "insertion_orders" && member === dialect.contract_number) {
    return "connection.dialect.contract_number (G1): the DSP may keep the contract number under another member";
  }
  if (member === "pacing") return "G2: pacing is stored and returned as given";
  if (create) {
    return member === "active"
      ? "G3: a campaign is created with active as sent (false: activated in the last phase)"
      : "G3: POST /campaigns creates each campaign with the members sent";
  }
  if (batch === "creatives") return "G6: PATCH /creatives sets the members it carries";
  return `G4: PATCH /${batch} sets every member it carries, in request order`;
}

/** The members of `sent` the answered object shows otherwise, by the resource's kinds. */
function itemDifferences(
  fields: readonly FieldSpec[],
  sent: Item,
  answered: Item,
  canonical: (member: string) => string,
): Array<{ member: string; sent: unknown; answered?: unknown }> {
  const out: Array<{ member: string; sent: unknown; answered?: unknown }> = [];
  for (const [member, value] of Object.entries(sent)) {
    if (member === "id") continue;
    const name = canonical(member);
    if (!Object.hasOwn(answered, name) || answered[name] === undefined) {
      out.push({ member, sent: value });
      continue;
    }
    const shown = answered[name];
    const kind = fields.find((f) => f.name === name)?.kind;
    // A member no table describes is compared deeply, as JSON, like an opaque one.
    const equal =
      kind === undefined ? pacingEquals({ value }, { value: shown }) : valuesEqual(kind, value, shown);
    if (!equal) out.push({ member, sent: value, answered: shown });
  }
  return out;
}

const listOf = (value: unknown, member: string): Item[] | undefined => {
  const list = (value as Item | null)?.[member];
  return Array.isArray(list) ? (list as Item[]) : undefined;
};

/** A difference found, and the batch field that names it (`campaigns[0].budget_impressions`). */
export interface Difference extends InconsistentMember {
  item: number;
  field: string;
}

/**
 * Each member of `request` that `answer` does not show as sent: a PATCH's objects by id, a
 * create's by order (G3); an object left out is `absent`, for the caller to read back.
 */
export function differences(
  request: Request,
  answer: unknown,
  dialect: Dialect,
): { differences: Difference[]; absent: string[] } {
  const targetings = TARGETINGS_PATH.exec(request.path);
  if (request.method === "PUT" && targetings) {
    const id = decodeURIComponent(targetings[1]!);
    const sent = ((request.body as Item | null)?.targetings ?? []) as TargetingOptionSet[];
    const shown = (answer as Item | null)?.targetings;
    if (!Array.isArray(shown)) return { differences: [], absent: [`targetings of campaign ${id}`] };
    if (Targeting.listEquals(sent, shown as TargetingOptionSet[])) return { differences: [], absent: [] };
    const difference: Difference = {
      object: `campaign ${id}`,
      member: "targetings",
      sent: Targeting.normalizeList(sent),
      answered: Targeting.normalizeList(shown as TargetingOptionSet[]),
      explain: "G5: PUT /campaigns/{id}/targetings replaces the whole list with the one sent",
      item: 0,
      field: "targetings",
    };
    return { differences: [difference], absent: [] };
  }
  if (request.method === "POST" && request.path.endsWith("/campaigns")) {
    return created(request.body, answer, dialect);
  }
  if (request.method !== "PATCH") return { differences: [], absent: [] };
  const batch = batchOf(request.path);
  const sentItems = batch && listOf(request.body, batch.member);
  if (!batch || !sentItems) return { differences: [], absent: [] };
  const byId = new Map((listOf(answer, batch.member) ?? []).map((o) => [o.id, o] as const));
  const canonical = (m: string) => canonicalMember(batch.member, m, dialect);
  const out: Difference[] = [];
  const absent: string[] = [];
  sentItems.forEach((sent, item) => {
    const id = String(sent.id);
    const shown = byId.get(id);
    if (shown === undefined) {
      absent.push(`${batch.noun} ${id}`);
      return;
    }
    for (const d of itemDifferences(batch.fields, sent, shown, canonical)) {
      out.push({
        object: `${batch.noun} ${id}`,
        ...d,
        explain: explain(d.member, batch.member, dialect, false),
        item,
        field: `${batch.member}[${item}].${d.member}`,
      });
    }
  });
  return { differences: out, absent };
}

/** G3: a create's campaigns, in request order, against the items sent. */
function created(
  body: unknown,
  answer: unknown,
  dialect: Dialect,
): { differences: Difference[]; absent: string[] } {
  const sentItems = createdItems(dialect, body);
  const shown = listOf(answer, "campaigns") ?? [];
  if (!Array.isArray(sentItems)) return { differences: [], absent: [] };
  const out: Difference[] = [];
  (sentItems as Item[]).forEach((sent, item) => {
    const campaign = shown[item];
    if (campaign === undefined) return;
    for (const d of itemDifferences(CAMPAIGN_FIELDS, sent, campaign, (m) => m)) {
      out.push({
        object: `new campaign "${String(sent.name)}" (${String(campaign.id)})`,
        ...d,
        explain: explain(d.member, "campaigns", dialect, true),
        item,
        field: `${dialect.create_campaigns_member}[${item}].${d.member}`,
      });
    }
  });
  return { differences: out, absent: [] };
}

/**
 * The objects of a batch PATCH `live` shows as sent, with the members each writes: an attempt
 * that got no answer may have written them (guard.ts).
 */
export function shownAsSent(
  request: Request,
  live: readonly object[],
  dialect: Dialect,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const batch = batchOf(request.path);
  if (!batch) return out;
  const found = differences(request, { [batch.member]: live }, dialect).differences;
  const differing = new Set(found.map((d) => d.item));
  const ids = new Set(live.map((o) => (o as Item).id));
  (listOf(request.body, batch.member) ?? []).forEach((sent, item) => {
    if (differing.has(item) || !ids.has(sent.id)) return;
    const members = Object.keys(sent).filter((m) => m !== "id");
    out.set(
      String(sent.id),
      members.map((m) => canonicalMember(batch.member, m, dialect)),
    );
  });
  return out;
}

/** The objects a PATCH or PUT wrote, read back in its answer's shape: what it did, its answer lost. */
export async function readBack(client: DspClient, request: Request, options: SendOptions): Promise<unknown> {
  const targetings = TARGETINGS_PATH.exec(request.path);
  if (request.method === "PUT" && targetings) {
    const id = decodeURIComponent(targetings[1]!);
    const lists = await client.getTargetings([id], options);
    return { targetings: lists.get(id) };
  }
  const batch = batchOf(request.path);
  if (!batch) return undefined;
  const ids = (listOf(request.body, batch.member) ?? []).map((item) => String(item.id));
  return { [batch.member]: await batch.read(client, ids, options) };
}

/** Throws InconsistentResultError when `answer` does not show `request` as sent. */
export function checkAnswer(request: Request, answer: unknown, dialect: Dialect): void {
  const found = differences(request, answer, dialect).differences;
  if (found.length === 0) return;
  throw new InconsistentResultError(
    found.map(({ item: _item, field: _field, ...member }) => member),
    found.map((d) => d.field),
  );
}
