/**
 * Test-only departures from one gap decision each, so that `doohctl doctor` can be shown to notice
 * a DSP that differs. At the edge (query before, reply after the handler); off unless
 * `EmulatorOptions.quirks` names them. Never for rehearsing a change.
 */
import type { Reply } from "./context.js";

export const QUIRKS = [
  /** G1 departed from: the insertion order list's array is named `items`. */
  "io-list-items",
  /** G5 departed from: a campaign's targetings read as `{"option_sets": [...]}`. */
  "targetings-option-sets",
  /** G12 departed from: list answers carry no `total_size`. */
  "no-total-size",
  /** G12 departed from: a page above 100 is not refused; it answers an empty page. */
  "page-unbounded",
  /** G12 departed from: `page` is ignored, so every page answers page 0. */
  "page-ignored",
] as const;

export type Quirk = (typeof QUIRKS)[number];

const TARGETINGS_READ = /^\/api\/dsp\/v1\/campaigns\/[^/]+\/targetings$/;
const IO_LIST = "/api/dsp/v1/insertion_orders";

/** What the query quirks did, for the reply quirks. */
export interface QuirkTrace {
  pastPageBound: boolean;
}

/**
 * `page-unbounded`: a page above 100 leaves the query and is answered empty; `page-ignored`: the page
 * leaves the query, so page 0 answers.
 */
export function quirkQuery(quirks: ReadonlySet<Quirk>, method: string, query: URLSearchParams): QuirkTrace {
  if (method === "GET" && quirks.has("page-ignored")) query.delete("page");
  const page = query.get("page");
  if (method !== "GET" || !quirks.has("page-unbounded") || page === null || !/^[0-9]+$/.test(page)) {
    return { pastPageBound: false };
  }
  if (Number(page) <= 100) return { pastPageBound: false };
  query.delete("page");
  return { pastPageBound: true };
}

/** The reply as a DSP with these quirks would send it; successful GETs only. */
export function quirkReply(
  quirks: ReadonlySet<Quirk>,
  request: { method: string; path: string; trace: QuirkTrace },
  reply: Reply,
): Reply {
  if (quirks.size === 0 || request.method !== "GET" || reply.status !== 200) return reply;
  const parsed: unknown = reply.raw !== undefined ? JSON.parse(reply.raw) : reply.body;
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return reply;
  let body: Record<string, unknown> = { ...(parsed as Record<string, unknown>) };
  const isList = typeof body.total_size === "number";
  if (isList && request.trace.pastPageBound) {
    for (const [key, value] of Object.entries(body)) if (Array.isArray(value)) body[key] = [];
  }
  if (isList && quirks.has("no-total-size")) delete body.total_size;
  if (request.path === IO_LIST && quirks.has("io-list-items")) {
    const { insertion_orders: items, ...rest } = body;
    body = { items, ...rest };
  }
  if (TARGETINGS_READ.test(request.path) && quirks.has("targetings-option-sets")) {
    body = { option_sets: body.targetings };
  }
  const { raw: _raw, ...rest } = reply;
  return { ...rest, body };
}
