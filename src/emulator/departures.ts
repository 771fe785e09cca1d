/**
 * Rehearsing a DSP that departs from the contract where nobody chose (docs/emulator.md): it drops a
 * member it is sent, answers a create in another shape, or ignores an unknown query parameter (G16)
 * (`--drop-on-write`, `--create-answer`, `--unknown-parameters`). At the edge, never in the rules.
 */
import type { Dialect } from "../model/dialect.js";
import { DSP_BASE_PATH } from "../model/wire.js";
import type { Reply } from "./context.js";
import { isPlainObject } from "./fields.js";

/** How `POST /campaigns` answers: the contract's way, under `campaigns` always, or ids only. */
export const CREATE_ANSWERS = ["member", "campaigns", "ids"] as const;
export type CreateAnswer = (typeof CREATE_ANSWERS)[number];

/** G16: what an unknown query parameter gets: a 422 naming it (the default), or nothing. */
export const UNKNOWN_PARAMETERS = ["refuse", "ignore"] as const;
export type UnknownParameters = (typeof UNKNOWN_PARAMETERS)[number];

export interface Departures {
  /** Members dropped from a write's items (or single body) before the handler, by the name sent. */
  dropOnWrite?: readonly string[] | undefined;
  /** @default "member": under the dialect's `create_campaigns_member`, as the contract says (G3). */
  createAnswer?: CreateAnswer | undefined;
  /** @default "refuse" (G16) */
  unknownParameters?: UnknownParameters | undefined;
}

/** A query whose parameters the operation does not name are ignored rather than refused (G16). */
export class LenientQuery extends URLSearchParams {}

/** The query as the DSP reads it: lenient when it ignores unknown parameters. */
export function queryOf(departures: Departures, query: URLSearchParams): URLSearchParams {
  return departures.unknownParameters === "ignore" ? new LenientQuery(query) : query;
}

const WRITES = new Set(["POST", "PUT", "PATCH"]);

/** The members whose list is a write's items: the batches (G4), the targeting list (G5), a create's (G3). */
const ITEM_LISTS = ["campaigns", "insertion_orders", "creatives", "targetings"];

/** A write body with the dropped members taken out of its items (or of itself). */
export function droppedBody(
  departures: Departures,
  dialect: Dialect,
  request: { method: string; path: string },
  body: unknown,
): unknown {
  const drop = departures.dropOnWrite ?? [];
  const { method, path } = request;
  if (drop.length === 0 || !WRITES.has(method) || !path.startsWith(`${DSP_BASE_PATH}/`)) return body;
  if (!isPlainObject(body)) return body;
  const without = (item: unknown) =>
    isPlainObject(item) ? Object.fromEntries(Object.entries(item).filter(([k]) => !drop.includes(k))) : item;
  const lists = [...ITEM_LISTS, dialect.create_campaigns_member];
  const entries = Object.entries(body);
  const [member, items] = entries[0] ?? [];
  if (entries.length !== 1 || !lists.includes(member!) || !Array.isArray(items)) return without(body);
  return { [member!]: items.map(without) };
}

/** `POST /campaigns`'s successful answer in the shape asked for; every other reply as it is. */
export function createReply(
  departures: Departures,
  dialect: Dialect,
  request: { method: string; pattern: string },
  reply: Reply,
): Reply {
  const shape = departures.createAnswer ?? "member";
  if (shape === "member" || request.method !== "POST" || request.pattern !== `${DSP_BASE_PATH}/campaigns`)
    return reply;
  if (reply.status < 200 || reply.status >= 300) return reply;
  const body: unknown = reply.raw !== undefined ? JSON.parse(reply.raw) : reply.body;
  const member = dialect.create_campaigns_member;
  const list = isPlainObject(body) && Array.isArray(body[member]) ? (body[member] as unknown[]) : [];
  const { raw: _raw, ...rest } = reply;
  if (shape === "campaigns") return { ...rest, body: { campaigns: list } };
  return { ...rest, body: { ids: list.map((c) => (isPlainObject(c) ? c.id : undefined)) } };
}
