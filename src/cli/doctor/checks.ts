/**
 * `doohctl doctor`'s checks: every assumption of the contract (spec plus G1 to G13) that GETs
 * can check, each answered `holds`, `differs` (what was seen, and where doohctl would have to
 * change) or `not checked` (why). Read-only by construction: the only sender it gets sends
 * GETs, through the client (so its rate pacing applies), within a read budget.
 */
import { ApiError, DspClientError, NetworkError, TimeoutError } from "../../api/errors.js";
import type { ApiRequest } from "../../api/types.js";
import { printable } from "../../model/printable.js";
import { DSP_BASE_PATH, type Environment, SESSION_LIFETIME_MS, sessionCookieName } from "../../model/wire.js";
import type { LoginSeen } from "./login.js";

export type CheckStatus = "holds" | "differs" | "not checked";

export interface CheckResult {
  id: string;
  /** The gap decision (G1..G13) or `spec` the check rests on. */
  gap: string;
  title: string;
  status: CheckStatus;
  /** What was seen (holds, differs) or why not (not checked). Printable text. */
  detail: string;
  /** For `differs`: which files of doohctl and which decision to change. */
  change?: string;
}

/** A GET's outcome: the JSON body, or the refusal or error the client reported. */
export type Answer =
  | { ok: true; body: unknown }
  | { ok: false; status: number | undefined; message: string; fields: string[] };

export interface ProbeInput {
  /** Sends one GET through the client; must throw DspClientError subclasses on failure. */
  send: (request: ApiRequest) => Promise<unknown>;
  /** Reads spent so far (the client's count, retries included). */
  reads: () => number;
  maxReads: number;
  login: LoginSeen;
  origin: string;
  environment: Environment;
  /** Clock time the doctor's login was sent, for the cookie's expiry. */
  loginSentAt: number;
}

const CONTRACT = "schemas/dsp-api.openapi.json";
const ENDPOINTS = `src/api/endpoints.ts / ${CONTRACT}`;
/** An id no seed or service is expected to hold (18 digits, the largest the seeds allow). */
const ABSENT_ID = "999999999999999999";
/** Cookie expiry tolerance around 8 hours: clock skew between the DSP and this machine. */
const EXPIRY_SLACK_MS = 5 * 60 * 1000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const isInt = (v: unknown) => typeof v === "number" && Number.isInteger(v);
const isMoney = (v: unknown) =>
  isObj(v) &&
  typeof v.currency_code === "string" &&
  typeof v.units === "string" &&
  (v.nanos === undefined || isInt(v.nanos));
const show = (value: unknown) => printable(JSON.stringify(value) ?? String(value)).slice(0, 200);
const members = (body: unknown) =>
  isObj(body) ? `{${Object.keys(body).map(printable).join(", ")}}` : show(body);

function get(path: string, query: Array<[string, string]> = []): ApiRequest {
  return query.length > 0 ? { method: "GET", path, query } : { method: "GET", path };
}

const dsp = (path: string) => `${DSP_BASE_PATH}${path}`;

/** A field whose value fails its test, as `name (saw value)`. */
function badFields(item: Obj, tests: Record<string, (v: unknown) => boolean>): string[] {
  return Object.entries(tests)
    .filter(([key, test]) => !test(item[key]))
    .map(([key]) => (key in item ? `${key} (saw ${show(item[key])})` : `${key} (missing)`));
}

const str = (v: unknown) => typeof v === "string";
const strOrNull = (v: unknown) => v === null || typeof v === "string";
const bool = (v: unknown) => typeof v === "boolean";

/** G1 InsertionOrder. */
const IO_FIELDS = {
  id: str,
  advertiser_id: str,
  name: str,
  contract_number: strOrNull,
  start_time: str,
  end_time: str,
  budget_impressions: (v: unknown) => v === null || isInt(v),
  budget_money: (v: unknown) => v === null || isMoney(v),
};
/** G2 Campaign. */
const CAMPAIGN_FIELDS = {
  id: str,
  insertion_order_id: str,
  name: str,
  active: bool,
  in_flight: bool,
  start_time: str,
  end_time: str,
  budget_impressions: isInt,
  cpm: isMoney,
  pacing: isObj,
};
/** Spec, Creative (DSP view). */
const CREATIVE_FIELDS = {
  id: str,
  advertiser_id: str,
  name: str,
  campaign_ids: Array.isArray,
  insertion_order_ids: Array.isArray,
  category_ids: Array.isArray,
  archived: bool,
  type: str,
  processing_status: str,
};

function ascending(ids: readonly string[]): boolean {
  for (let i = 1; i < ids.length; i++) {
    const a = BigInt(/^[0-9]+$/.test(ids[i - 1]!) ? ids[i - 1]! : "0");
    const b = BigInt(/^[0-9]+$/.test(ids[i]!) ? ids[i]! : "0");
    if (a >= b) return false;
  }
  return true;
}

/** Runs the checks in order of importance, so that a small budget leaves the least out. */
export async function runChecks(input: ProbeInput): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const add = (result: CheckResult) => results.push(result);
  /** Lists answered: for the total_size and default order checks. */
  const lists: { name: string; hasTotal: boolean; ids: string[] | undefined }[] = [];

  /**
   * Why no further probe is sent, when it is not the budget: staging has no DSP interface
   * (G13), or a probe got no answer at all and the rest would only wait for the same.
   */
  let stopped: string | undefined =
    input.environment === "staging"
      ? "the DSP interface exists in production only (G13) and this is staging"
      : undefined;
  const budget = (needed: number) => stopped === undefined && input.maxReads - input.reads() >= needed;
  const exhausted = () =>
    stopped ?? `read budget exhausted (${input.reads()} of ${input.maxReads} reads spent; raise --max-reads)`;

  async function read(request: ApiRequest): Promise<Answer> {
    try {
      return { ok: true, body: await input.send(request) };
    } catch (error) {
      if (error instanceof ApiError) {
        return {
          ok: false,
          status: error.status,
          message: printable(error.apiMessage),
          fields: error.data.map((d) => d.field),
        };
      }
      if (error instanceof NetworkError || error instanceof TimeoutError)
        stopped = `an earlier probe got no answer (${printable(error.message)})`;
      // A typed client error (the response validation refusing a shape, say) is an answer
      // that differs, not a crash.
      if (error instanceof DspClientError)
        return { ok: false, status: undefined, message: printable(error.message), fields: [] };
      throw error;
    }
  }

  const failed = (a: Answer & { ok: false }) =>
    a.status === undefined ? a.message : `answered ${a.status} ${a.message}`;

  /** A list answer: the array under `envelope` and an integer total_size. */
  function readList(
    name: string,
    envelope: string,
    answer: Answer,
    ordered = true,
  ): { items: Obj[]; total: number | undefined; problems: string[] } {
    if (!answer.ok) return { items: [], total: undefined, problems: [failed(answer)] };
    const body = answer.body;
    const problems: string[] = [];
    const array = isObj(body) ? body[envelope] : undefined;
    if (!Array.isArray(array)) problems.push(`no "${envelope}" array (saw members ${members(body)})`);
    const total = isObj(body) && isInt(body.total_size) ? (body.total_size as number) : undefined;
    if (total === undefined) problems.push(`no integer total_size (saw members ${members(body)})`);
    const items = Array.isArray(array) ? array.filter(isObj) : [];
    const ids = items.map((i) => i.id).filter((id): id is string => typeof id === "string");
    lists.push({
      name,
      hasTotal: total !== undefined,
      ids: ordered && Array.isArray(array) ? ids : undefined,
    });
    return { items, total, problems };
  }

  function verdict(
    base: Omit<CheckResult, "status" | "detail">,
    problems: string[],
    holds: string,
  ): CheckResult {
    return problems.length === 0
      ? { ...base, status: "holds", detail: holds }
      : { ...base, status: "differs", detail: problems.join("; ") };
  }

  // G9: the session cookie, from the doctor's own login.
  add(sessionCheck(input));
  // G13: the TLS of that same connection.
  add(tlsCheck(input));

  // G1: insertion orders.
  const ioBase = { gap: "G1", change: `${ENDPOINTS}, G1` };
  let firstIo: Obj | undefined;
  if (!budget(1)) {
    add({
      ...ioBase,
      id: "insertion-order-list",
      title: "insertion order list",
      status: "not checked",
      detail: exhausted(),
    });
  } else {
    const list = readList(
      "insertion_orders",
      "insertion_orders",
      await read(get(dsp("/insertion_orders"), [["page_size", "100"]])),
    );
    firstIo = list.items[0];
    const problems = [...list.problems];
    if (firstIo) problems.push(...badFields(firstIo, IO_FIELDS).map((f) => `insertion order field ${f}`));
    add(
      verdict(
        { ...ioBase, id: "insertion-order-list", title: "insertion order list" },
        problems,
        `{insertion_orders, total_size}, ${list.total} in all${firstIo ? ", fields as G1 names them" : ""}`,
      ),
    );
  }
  const ioId = typeof firstIo?.id === "string" ? firstIo.id : undefined;
  if (ioId === undefined) {
    const why = budget(1) ? "no insertion order to probe" : exhausted();
    add({
      ...ioBase,
      id: "insertion-order-get",
      title: "insertion order by id",
      status: "not checked",
      detail: why,
    });
    add({
      ...ioBase,
      id: "insertion-order-filters",
      title: "insertion order filters",
      status: "not checked",
      detail: why,
    });
  } else {
    if (!budget(1)) {
      add({
        ...ioBase,
        id: "insertion-order-get",
        title: "insertion order by id",
        status: "not checked",
        detail: exhausted(),
      });
    } else {
      const answer = await read(get(dsp(`/insertion_orders/${encodeURIComponent(ioId)}`)));
      const problems: string[] = [];
      if (!answer.ok) problems.push(failed(answer));
      else if (!isObj(answer.body) || answer.body.id !== ioId)
        problems.push(`expected insertion order ${ioId}, saw ${show(answer.body)}`);
      else problems.push(...badFields(answer.body, IO_FIELDS).map((f) => `field ${f}`));
      add(
        verdict(
          { ...ioBase, id: "insertion-order-get", title: "insertion order by id" },
          problems,
          `GET /insertion_orders/${printable(ioId)} answers it`,
        ),
      );
    }
    if (!budget(1)) {
      add({
        ...ioBase,
        id: "insertion-order-filters",
        title: "insertion order filters",
        status: "not checked",
        detail: exhausted(),
      });
    } else {
      const query: Array<[string, string]> = [["filter", `id:${ioId}`]];
      if (typeof firstIo?.advertiser_id === "string")
        query.push(["filter", `advertiser_id:${firstIo.advertiser_id}`]);
      if (typeof firstIo?.name === "string" && firstIo.name !== "")
        query.push(["search", `name:${firstIo.name}`]);
      const list = readList(
        "insertion_orders",
        "insertion_orders",
        await read(get(dsp("/insertion_orders"), query)),
      );
      const problems = [...list.problems];
      const ids = list.items.map((i) => i.id);
      if (list.problems.length === 0 && (ids.length !== 1 || ids[0] !== ioId))
        problems.push(
          `filter id, advertiser_id and search name of ${printable(ioId)} answered ids ${show(ids)}`,
        );
      add(
        verdict(
          { ...ioBase, id: "insertion-order-filters", title: "insertion order filters" },
          problems,
          "filter id and advertiser_id, search name find exactly the one",
        ),
      );
    }
  }

  // G2: campaigns.
  const cBase = { gap: "G2", change: `${ENDPOINTS}, G2` };
  let firstCampaign: Obj | undefined;
  let campaignTotal: number | undefined;
  if (!budget(1)) {
    add({
      ...cBase,
      id: "campaign-list",
      title: "campaign list and fields",
      status: "not checked",
      detail: exhausted(),
    });
  } else {
    const list = readList(
      "campaigns",
      "campaigns",
      await read(get(dsp("/campaigns"), [["page_size", "100"]])),
    );
    firstCampaign = list.items[0];
    campaignTotal = list.total;
    const problems = [...list.problems];
    if (firstCampaign) {
      problems.push(...badFields(firstCampaign, CAMPAIGN_FIELDS).map((f) => `campaign field ${f}`));
      if ("progress" in firstCampaign) problems.push("progress is present without include_progress=true");
    }
    add(
      verdict(
        { ...cBase, id: "campaign-list", title: "campaign list and fields" },
        problems,
        `{campaigns, total_size}, ${list.total} in all${firstCampaign ? ", fields as G2 names them, no progress unasked" : ""}`,
      ),
    );
  }
  const campaignId = typeof firstCampaign?.id === "string" ? firstCampaign.id : undefined;
  const noCampaign = () => (budget(1) ? "no campaign to probe" : exhausted());
  if (campaignId === undefined || !budget(1)) {
    add({
      ...cBase,
      id: "campaign-progress",
      title: "include_progress",
      status: "not checked",
      detail: noCampaign(),
    });
  } else {
    const answer = await read(
      get(dsp(`/campaigns/${encodeURIComponent(campaignId)}`), [["include_progress", "true"]]),
    );
    const problems: string[] = [];
    if (!answer.ok) problems.push(failed(answer));
    else {
      const progress = isObj(answer.body) ? answer.body.progress : undefined;
      if (!isObj(progress) || !isInt(progress.impressions_delivered) || !isMoney(progress.spend))
        problems.push(`progress is not {impressions_delivered, spend} (saw ${show(progress)})`);
    }
    add(
      verdict(
        { ...cBase, id: "campaign-progress", title: "include_progress" },
        problems,
        "GET /campaigns/{id}?include_progress=true adds progress {impressions_delivered, spend}",
      ),
    );
  }
  if (campaignId === undefined || !budget(1)) {
    add({
      ...cBase,
      id: "campaign-filters",
      title: "campaign filters",
      status: "not checked",
      detail: noCampaign(),
    });
  } else {
    const c = firstCampaign!;
    const query: Array<[string, string]> = [["filter", `id:${campaignId}`]];
    if (typeof c.insertion_order_id === "string")
      query.push(["filter", `insertion_order_id:${c.insertion_order_id}`]);
    if (typeof c.active === "boolean") query.push(["filter", `active:${c.active}`]);
    if (typeof c.in_flight === "boolean") query.push(["filter", `in_flight:${c.in_flight}`]);
    if (typeof c.name === "string" && c.name !== "") query.push(["search", `name:${c.name}`]);
    const list = readList("campaigns", "campaigns", await read(get(dsp("/campaigns"), query)));
    const problems = [...list.problems];
    const ids = list.items.map((i) => i.id);
    if (list.problems.length === 0 && (ids.length !== 1 || ids[0] !== campaignId))
      problems.push(
        `filters id, insertion_order_id, active, in_flight and search name answered ids ${show(ids)}`,
      );
    add(
      verdict(
        { ...cBase, id: "campaign-filters", title: "campaign filters" },
        problems,
        "filter id, insertion_order_id, active, in_flight and search name find exactly the one",
      ),
    );
  }

  // G5: the targetings read path and shape.
  const tBase = { gap: "G5", change: `${ENDPOINTS}, G5` };
  if (campaignId === undefined || !budget(1)) {
    add({
      ...tBase,
      id: "targetings",
      title: "targetings read",
      status: "not checked",
      detail: noCampaign(),
    });
  } else {
    const answer = await read(get(dsp(`/campaigns/${encodeURIComponent(campaignId)}/targetings`)));
    const problems: string[] = [];
    if (!answer.ok) problems.push(failed(answer));
    else if (!isObj(answer.body) || !Array.isArray(answer.body.targetings))
      problems.push(`no "targetings" array (saw ${show(answer.body)})`);
    else problems.push(...targetingProblems(answer.body.targetings));
    add(
      verdict(
        { ...tBase, id: "targetings", title: "targetings read" },
        problems,
        `GET /campaigns/${printable(campaignId)}/targetings answers {targetings: [option sets]}`,
      ),
    );
  }

  // G6: creatives and their filters.
  const crBase = { gap: "G6", change: `${ENDPOINTS}, G6` };
  let firstCreative: Obj | undefined;
  if (!budget(2)) {
    add({
      ...crBase,
      id: "creative-filters",
      title: "creative list and filters",
      status: "not checked",
      detail: exhausted(),
    });
  } else {
    const list = readList(
      "creatives",
      "creatives",
      await read(get(dsp("/creatives"), [["page_size", "100"]])),
    );
    firstCreative = list.items[0];
    const problems = [...list.problems];
    let detail = `{creatives, total_size}, ${list.total} in all`;
    if (firstCreative) {
      problems.push(...badFields(firstCreative, CREATIVE_FIELDS).map((f) => `creative field ${f}`));
      const c = firstCreative;
      const query: Array<[string, string]> = [["filter", `id:${String(c.id)}`]];
      for (const key of ["advertiser_id", "type", "processing_status"] as const)
        if (typeof c[key] === "string") query.push(["filter", `${key}:${c[key]}`]);
      if (typeof c.archived === "boolean") query.push(["filter", `archived:${c.archived}`]);
      for (const key of ["campaign_ids", "insertion_order_ids"] as const) {
        const first = Array.isArray(c[key]) ? (c[key] as unknown[])[0] : undefined;
        if (typeof first === "string") query.push(["filter", `${key}:${first}`]);
      }
      if (typeof c.name === "string" && c.name !== "") query.push(["search", `name:${c.name}`]);
      const filtered = readList("creatives", "creatives", await read(get(dsp("/creatives"), query)));
      problems.push(...filtered.problems);
      const ids = filtered.items.map((i) => i.id);
      if (filtered.problems.length === 0 && (ids.length !== 1 || ids[0] !== c.id))
        problems.push(`the G6 filters of creative ${show(c.id)} answered ids ${show(ids)}`);
      detail += `; filters ${query.map(([, v]) => printable(v.slice(0, v.indexOf(":")))).join(", ")} find exactly the one`;
    } else detail += "; no creative to probe the filters with";
    add(verdict({ ...crBase, id: "creative-filters", title: "creative list and filters" }, problems, detail));
  }

  // Spec, list envelope: each list's array is named after the resource.
  const eBase = { gap: "spec", change: `${ENDPOINTS}, spec "List envelope"` };
  if (!budget(2)) {
    add({
      ...eBase,
      id: "list-envelopes",
      title: "list envelopes",
      status: "not checked",
      detail: exhausted(),
    });
  } else {
    const problems = [
      ...readList(
        "advertisers",
        "advertisers",
        await read(get(dsp("/advertisers"), [["page_size", "1"]])),
      ).problems.map((p) => `advertisers: ${p}`),
      ...readList(
        "creative_categories",
        "creative_categories",
        await read(get(dsp("/creative_categories"), [["page_size", "1"]])),
      ).problems.map((p) => `creative_categories: ${p}`),
    ];
    add(
      verdict(
        { ...eBase, id: "list-envelopes", title: "list envelopes" },
        problems,
        "{advertisers, total_size} and {creative_categories, total_size}",
      ),
    );
  }

  // G12: paging.
  const pBase = { gap: "G12", change: `src/api/paging.ts / ${CONTRACT}, G12` };
  if (!budget(1)) {
    add({ ...pBase, id: "page-bound", title: "page bound", status: "not checked", detail: exhausted() });
  } else {
    const answer = await read(
      get(dsp("/campaigns"), [
        ["page", "101"],
        ["page_size", "1"],
      ]),
    );
    const problems: string[] = [];
    if (answer.ok)
      problems.push(`page=101 answered 200 (saw members ${members(answer.body)}): no bound at 100`);
    else if (answer.status !== 422 || !answer.fields.includes("page"))
      problems.push(`page=101 ${failed(answer)}, fields ${show(answer.fields)}: expected 422 naming page`);
    add(
      verdict({ ...pBase, id: "page-bound", title: "page bound" }, problems, "page=101 is 422 naming page"),
    );
  }
  if (!budget(1)) {
    add({ ...pBase, id: "page-size-zero", title: "page_size=0", status: "not checked", detail: exhausted() });
  } else {
    const list = readList("campaigns", "campaigns", await read(get(dsp("/campaigns"), [["page_size", "0"]])));
    const problems = [...list.problems];
    if (list.items.length > 0) problems.push(`page_size=0 answered ${list.items.length} items`);
    if (list.total !== undefined && campaignTotal !== undefined && list.total !== campaignTotal)
      problems.push(`page_size=0 answered total_size ${list.total}, the first page ${campaignTotal}`);
    add(
      verdict(
        { ...pBase, id: "page-size-zero", title: "page_size=0" },
        problems,
        `no items and the true total_size (${list.total})`,
      ),
    );
  }
  const answeredLists = lists.length;
  const withoutTotal = [...new Set(lists.filter((l) => !l.hasTotal).map((l) => l.name))];
  add(
    answeredLists === 0
      ? {
          ...pBase,
          id: "total-size",
          title: "total_size in lists",
          status: "not checked",
          detail: "no list was read",
        }
      : verdict(
          { ...pBase, id: "total-size", title: "total_size in lists" },
          withoutTotal.length > 0 ? [`no integer total_size in ${withoutTotal.join(", ")}`] : [],
          `every one of ${answeredLists} list answers has an integer total_size`,
        ),
  );
  const ordered = lists.filter((l) => l.ids !== undefined && l.ids.length > 1);
  const unordered = [...new Set(ordered.filter((l) => !ascending(l.ids!)).map((l) => l.name))];
  add(
    ordered.length === 0
      ? {
          ...pBase,
          id: "default-order",
          title: "default ascending-id order",
          status: "not checked",
          detail: "no list answered two items or more",
        }
      : verdict(
          { ...pBase, id: "default-order", title: "default ascending-id order" },
          unordered.length > 0 ? [`not in ascending numeric id order: ${unordered.join(", ")}`] : [],
          `${[...new Set(ordered.map((l) => l.name))].join(", ")} come in ascending numeric id order`,
        ),
  );

  // Spec, Errors: the shape of a 404.
  const nBase = {
    gap: "spec",
    change: 'src/api/client.ts (error body) / schemas/dsp-api.openapi.json, spec "Errors"',
  };
  if (!budget(1)) {
    add({ ...nBase, id: "not-found", title: "404 error shape", status: "not checked", detail: exhausted() });
  } else {
    const answer = await read(get(dsp(`/campaigns/${ABSENT_ID}`)));
    const problems: string[] = [];
    if (answer.ok) problems.push(`campaign ${ABSENT_ID} answered 200 (saw ${show(answer.body)})`);
    else if (answer.status !== 404 || answer.message !== "Not Found")
      problems.push(`a missing campaign ${failed(answer)}: expected 404 {"message": "Not Found"}`);
    add(
      verdict(
        { ...nBase, id: "not-found", title: "404 error shape" },
        problems,
        '404 {"message": "Not Found"}',
      ),
    );
  }
  return results;
}

const OPTION_IDS: Record<string, string> = {
  deal_targeting_option: "deal_ids",
  venue_type_targeting_option: "venue_type_ids",
  venue_targeting_option: "venue_targeting_ids",
  publisher_targeting_option: "publisher_ids",
};

/** G5 shape of an option set list; the problems found, at most a few. */
function targetingProblems(list: unknown[]): string[] {
  const problems: string[] = [];
  list.forEach((set, i) => {
    if (!isObj(set) || Object.keys(set).length === 0) {
      problems.push(`targetings[${i}] is not an object with an option member (saw ${show(set)})`);
      return;
    }
    for (const [member, option] of Object.entries(set)) {
      const idsKey = OPTION_IDS[member];
      if (idsKey === undefined)
        problems.push(`targetings[${i}].${printable(member)} is not a G5 option member`);
      else if (!isObj(option) || !Array.isArray(option[idsKey]) || !(option[idsKey] as unknown[]).every(str))
        problems.push(
          `targetings[${i}].${member}.${idsKey} is not an array of strings (saw ${show(option)})`,
        );
      else if (isObj(option) && option.exclude !== undefined && typeof option.exclude !== "boolean")
        problems.push(`targetings[${i}].${member}.exclude is not a boolean`);
    }
  });
  return problems.slice(0, 3);
}

function sessionCheck(input: ProbeInput): CheckResult {
  const base = {
    id: "session-cookie",
    gap: "G9",
    title: "session cookie",
    change: "src/api/client.ts (login) / src/api/session.ts, G9",
  };
  const { login } = input;
  const expected = sessionCookieName(input.environment);
  const problems: string[] = [];
  if (login.status !== 200) problems.push(`POST /api/session answered ${login.status}`);
  const cookie = login.cookies.find((c) => c.name === expected);
  if (!cookie) {
    const names = login.cookies.map((c) => printable(c.name));
    problems.push(`no ${expected} cookie (saw ${names.length > 0 ? names.join(", ") : "no Set-Cookie"})`);
    return { ...base, status: "differs", detail: problems.join("; ") };
  }
  const attributes = cookie.attributes;
  for (const flag of ["secure", "httponly"])
    if (attributes.get(flag) !== true) problems.push(`no ${flag === "secure" ? "Secure" : "HttpOnly"}`);
  if (attributes.get("path") !== "/")
    problems.push(`Path is ${show(attributes.get("path") ?? "absent")}, not /`);
  const expires = attributes.get("expires");
  const maxAge = attributes.get("max-age");
  let lifetime: number | undefined;
  if (typeof maxAge === "string" && /^[0-9]+$/.test(maxAge)) lifetime = Number(maxAge) * 1000;
  else if (typeof expires === "string" && !Number.isNaN(Date.parse(expires)))
    lifetime = Date.parse(expires) - input.loginSentAt;
  if (lifetime === undefined) problems.push("no Expires (or Max-Age) attribute");
  else if (Math.abs(lifetime - SESSION_LIFETIME_MS) > EXPIRY_SLACK_MS)
    problems.push(`expires ${hours(lifetime)} after login, not 8h`);
  if (login.body !== undefined && typeof login.body.expires_at !== "string")
    problems.push("the login body has no expires_at");
  return problems.length > 0
    ? { ...base, status: "differs", detail: problems.join("; ") }
    : {
        ...base,
        status: "holds",
        detail: `${expected}; Secure, HttpOnly, Path=/; expires ${hours(lifetime!)} after login`,
      };
}

function hours(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  return `${Math.trunc(minutes / 60)}h${minutes % 60 === 0 ? "" : ` ${Math.abs(minutes % 60)}m`}`;
}

/** Spec, Authentication 7 (G13). */
export const PERMITTED_TLS_CIPHERS = [
  "TLS_AES_128_GCM_SHA256",
  "TLS_AES_256_GCM_SHA384",
  "TLS_CHACHA20_POLY1305_SHA256",
  "ECDHE-RSA-AES128-GCM-SHA256",
  "ECDHE-RSA-AES128-SHA256",
  "ECDHE-RSA-AES256-GCM-SHA384",
  "ECDHE-RSA-AES256-SHA384",
];

function tlsCheck(input: ProbeInput): CheckResult {
  const base = {
    id: "tls",
    gap: "G13",
    title: "TLS version and cipher",
    change: "src/api/transport.ts (TLS options), G13",
  };
  const { tls } = input.login;
  if (tls === undefined) {
    return {
      ...base,
      status: "not checked",
      detail: `${printable(input.origin)} is plain http:// (G13 allows it to loopback only): there is no TLS to check`,
    };
  }
  const problems: string[] = [];
  if (tls.protocol !== "TLSv1.2" && tls.protocol !== "TLSv1.3")
    problems.push(`negotiated ${printable(tls.protocol)}, not TLS 1.2 or 1.3`);
  if (!PERMITTED_TLS_CIPHERS.includes(tls.cipher))
    problems.push(`cipher ${printable(tls.cipher)} is not one the specification permits`);
  return problems.length > 0
    ? { ...base, status: "differs", detail: problems.join("; ") }
    : { ...base, status: "holds", detail: `${tls.protocol}, ${tls.cipher}` };
}
