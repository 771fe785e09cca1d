/**
 * A DSP that departs from one gap decision at a time, in a proxy in front of the emulator
 * (`interceptingProxy`, `EmulatorWorld.behind`), so that tests can show `doohctl doctor` and the
 * client noticing a DSP that reads the documents differently. The emulator itself stays the
 * contract; a quirk changes the query before it and a successful GET's answer after it.
 */
import { type OnRequest, send, wholeAnswer } from "./proxy.js";

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

/** The proxy's handler for `quirks`: every other request and answer passes as it is. */
export function quirky(quirks: readonly Quirk[]): OnRequest {
  return (request, response, forward) => {
    const url = new URL(request.url ?? "/", "http://quirks.invalid");
    const get = request.method === "GET";
    const page = url.searchParams.get("page");
    // `page-unbounded`: a page above 100 is taken out of the query and answered empty afterwards.
    const pastPageBound =
      get &&
      quirks.includes("page-unbounded") &&
      page !== null &&
      /^[0-9]+$/.test(page) &&
      Number(page) > 100;
    if (page !== null && ((get && quirks.includes("page-ignored")) || pastPageBound)) {
      url.searchParams.delete("page");
      request.url = `${url.pathname}${url.search}`;
    }
    void forward().then(async (answer) => {
      const reply = await wholeAnswer(answer);
      if (get && reply.status === 200)
        reply.body = quirkBody(quirks, url.pathname, pastPageBound, reply.body);
      send(response, reply);
    });
  };
}

function quirkBody(quirks: readonly Quirk[], path: string, pastPageBound: boolean, text: string): string {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return text;
  let body: Record<string, unknown> = { ...(parsed as Record<string, unknown>) };
  const isList = typeof body.total_size === "number";
  if (isList && pastPageBound) {
    for (const [key, value] of Object.entries(body)) if (Array.isArray(value)) body[key] = [];
  }
  if (isList && quirks.includes("no-total-size")) delete body.total_size;
  if (path === IO_LIST && quirks.includes("io-list-items")) {
    const { insertion_orders: items, ...rest } = body;
    body = { items, ...rest };
  }
  if (TARGETINGS_READ.test(path) && quirks.includes("targetings-option-sets")) {
    body = { option_sets: body.targetings };
  }
  return JSON.stringify(body);
}
