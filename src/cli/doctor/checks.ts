/**
 * `doohctl doctor`'s checks: every assumption of the contract (spec plus G1 to G16) GETs can
 * check, most important first so a small budget leaves the least out; what an answer must hold
 * is the contract's to say, for the members of the model's tables (`memberProblems`).
 */
import { checkFragment } from "../../api/contract-check.js";
import type { Dialect } from "../../model/dialect.js";
import { printable } from "../../model/printable.js";
import {
  CAMPAIGN_FIELDS,
  CREATIVE_FIELDS,
  type FieldSpec,
  INSERTION_ORDER_FIELDS,
} from "../../model/resource-fields.js";
import { contractFieldSchema } from "../../model/resource-schemas.js";
import { DSP_BASE_PATH } from "../../model/wire.js";
import { sessionCheck, tlsCheck } from "./login-checks.js";
import { memberChecks } from "./members.js";
import { pagingChecks } from "./paging-checks.js";
import { type Answer, type CheckResult, failure, type ListSeen, Probe, type ProbeInput } from "./probe.js";
import { isObj, members, moneyMembers, type Obj, progressShaped, show } from "./seen.js";

export type { CheckResult, CheckStatus, ProbeInput } from "./probe.js";

const CONTRACT = "schemas/dsp-api.openapi.json";
const ENDPOINTS = `src/api/endpoints.ts / ${CONTRACT}`;
/** An id no account is expected to hold (18 digits, the most the emulator's seeds allow). */
const ABSENT_ID = "999999999999999999";

const dsp = (path: string) => `${DSP_BASE_PATH}${path}`;
const idOf = (item: Obj | undefined) => (typeof item?.id === "string" ? item.id : undefined);

/** The members of `fields` that `item` lacks or holds otherwise than the contract says. */
export function memberProblems(fields: readonly FieldSpec[], item: object): string[] {
  const values = item as Obj;
  return fields.flatMap((spec) => {
    if (!Object.hasOwn(values, spec.name)) return [`${spec.name} (missing)`];
    const value = values[spec.name];
    const issue = checkFragment(contractFieldSchema(spec, "read"), value)[0];
    return issue === undefined ? [] : [`${spec.name} (saw ${show(value)}: ${issue.expected})`];
  });
}

/** G5 option sets as the contract's `TargetingOptionSet` says: the first few problems. */
export function targetingProblems(list: readonly unknown[]): string[] {
  const sets = { type: "array", items: { $ref: "#/components/schemas/TargetingOptionSet" } };
  return checkFragment(sets, list)
    .slice(0, 3)
    .map((issue) => `targetings${printable(issue.at)}: ${issue.expected}`);
}

/** The list found exactly `id`, else the problem. */
function exactlyOne(list: ListSeen, id: string, what: string): string[] {
  if (list.problems.length > 0) return list.problems;
  const ids = list.items.map((i) => i.id);
  return ids.length === 1 && ids[0] === id ? [] : [`${what} answered ids ${show(ids)}`];
}

/** `filter=field:value` for each string or boolean member of `item` named in `fields`. */
function filtersOf(item: Obj, fields: readonly string[]): Array<[string, string]> {
  const query: Array<[string, string]> = [];
  for (const field of fields) {
    const value = item[field];
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === "string" || typeof first === "boolean") query.push(["filter", `${field}:${first}`]);
  }
  if (typeof item.name === "string" && item.name !== "") query.push(["search", `name:${item.name}`]);
  return query;
}

export async function runChecks(input: ProbeInput): Promise<CheckResult[]> {
  const probe = new Probe(input);
  probe.add(sessionCheck(input.login, input.environment, input.stopped));
  probe.add(tlsCheck(input.login, input.origin, input.stopped));
  await insertionOrderChecks(probe, input);
  const firstCampaign = await campaignChecks(probe, input);
  await targetingCheck(probe, input, idOf(firstCampaign));
  await creativeCheck(probe);
  await envelopeCheck(probe);
  await pagingChecks(probe);
  await notFoundCheck(probe);
  for (const result of memberChecks(probe, input.unknownMembers)) probe.add(result);
  return probe.results;
}

/** The dialect keys a failed read points at: a path that is not there, a member that is not. */
function keysOf(
  answer: Answer | undefined,
  notFound: readonly string[],
  members: Record<string, string>,
): string[] {
  if (answer === undefined || answer.ok) return [];
  if (answer.status === 404) return [...notFound];
  const keys = new Set<string>();
  for (const issue of answer.issues ?? []) {
    for (const [member, key] of Object.entries(members)) {
      if (issue.at.split("/").includes(member)) keys.add(key);
    }
  }
  return [...keys];
}

/** G1 with the dialect's path and contract number member: list, get by id, filters. */
async function insertionOrderChecks(probe: Probe, input: ProbeInput): Promise<void> {
  const base = { gap: "G1", change: `${ENDPOINTS}, G1` };
  const { endpoints, dialect } = input;
  const listPath = endpoints.insertionOrders.request({}).path;
  // A dialect holds plain names and paths only (`dialectValueProblem`, src/model/dialect.ts).
  const at = dialect.insertion_orders_path;
  // A 404 names the path; a missing or mistyped contract number names the member.
  const keys = (answer: Answer | undefined) =>
    keysOf(answer, ["insertion_orders_path"], { contract_number: "contract_number" });
  let first: Obj | undefined;
  await probe.check(
    { ...base, id: "insertion-order-list", title: "insertion order list", reads: 1 },
    async () => {
      const list = await probe.readList("insertion_orders", listPath, [["page_size", "100"]]);
      first = list.items[0];
      const fields = first
        ? memberProblems(INSERTION_ORDER_FIELDS, first).map((f) => `insertion order field ${f}`)
        : [];
      return {
        problems: [...list.problems, ...fields],
        holds: `GET ${at}: {insertion_orders, total_size}, ${list.total} in all${first ? ", fields as G1 names them" : ""}`,
        keys: keys(list.failed),
      };
    },
  );
  const id = idOf(first);
  const missing = id === undefined ? "no insertion order to probe" : undefined;
  await probe.check(
    { ...base, id: "insertion-order-get", title: "insertion order by id", reads: 1, missing },
    async () => {
      const answer = await probe.read(endpoints.getInsertionOrder(id!).path);
      const problems: string[] = [];
      if (!answer.ok) problems.push(failure(answer));
      else if (!isObj(answer.body) || answer.body.id !== id)
        problems.push(`expected insertion order ${printable(id!)}, saw ${show(answer.body)}`);
      else problems.push(...memberProblems(INSERTION_ORDER_FIELDS, answer.body).map((f) => `field ${f}`));
      return { problems, holds: `GET ${at}/${printable(id!)} answers it`, keys: keys(answer) };
    },
  );
  await probe.check(
    { ...base, id: "insertion-order-filters", title: "insertion order filters", reads: 1, missing },
    async () => {
      const query = [["filter", `id:${id}`] as [string, string], ...filtersOf(first!, ["advertiser_id"])];
      const list = await probe.readList("insertion_orders", listPath, query);
      return {
        problems: exactlyOne(list, id!, `filter id, advertiser_id and search name of ${printable(id!)}`),
        holds: "filter id and advertiser_id, search name find exactly the one",
      };
    },
  );
}

/** G2: list and fields, progress in the dialect's words, filters; returns the campaign probed. */
async function campaignChecks(probe: Probe, input: ProbeInput): Promise<Obj | undefined> {
  const base = { gap: "G2", change: `${ENDPOINTS}, G2` };
  const { endpoints, dialect } = input;
  const embedded = dialect.campaign_targetings;
  let first: Obj | undefined;
  await probe.check(
    { ...base, id: "campaign-list", title: "campaign list and fields", reads: 1 },
    async () => {
      const list = await probe.readList("campaigns", dsp("/campaigns"), [["page_size", "100"]]);
      first = list.items[0];
      const problems = [...list.problems];
      if (first) {
        problems.push(...memberProblems(CAMPAIGN_FIELDS, first).map((f) => `campaign field ${f}`));
        if ("progress" in first)
          problems.push(`${dialect.progress.member} is present without ${dialect.progress.parameter}`);
      }
      const fields = first ? ", fields as G2 names them, no progress unasked" : "";
      // With `campaign_targetings`, a campaign without the embedded list is refused (answer.ts).
      const keys = embedded === null ? [] : keysOf(list.failed, [], { [embedded]: "campaign_targetings" });
      return { problems, holds: `{campaigns, total_size}, ${list.total} in all${fields}`, keys };
    },
  );
  const id = idOf(first);
  const missing = id === undefined ? "no campaign to probe" : undefined;
  await probe.check(
    { ...base, id: "campaign-progress", title: "campaign progress", reads: 1, missing },
    async () => {
      // Read as it came: what the DSP calls progress is what this check looks for.
      const request = endpoints.getCampaign(id!, { includeProgress: true });
      const answer = await probe.read(request.path, request.query ?? [], { raw: true });
      const { member, impressions, spend, parameter } = dialect.progress;
      const holds = `GET /campaigns/{id}?${parameter} adds ${member} {${impressions}, ${spend}}`;
      // G16: a DSP that does not know the parameter refuses it, or ignores it (progressProblems).
      if (!answer.ok && (answer.status === 400 || answer.status === 422)) {
        const problem = `${parameter} ${failure(answer)}: the DSP refuses the parameter, so it does not know it (G16)`;
        return { problems: [problem], holds, keys: ["progress.parameter"] };
      }
      if (!answer.ok) return { problems: [failure(answer)], holds };
      return { ...progressProblems(answer.body, dialect), holds };
    },
  );
  await probe.check(
    { ...base, id: "campaign-filters", title: "campaign filters", reads: 1, missing },
    async () => {
      const query = [
        ["filter", `id:${id}`] as [string, string],
        ...filtersOf(first!, ["insertion_order_id", "active", "in_flight"]),
      ];
      const list = await probe.readList("campaigns", dsp("/campaigns"), query);
      return {
        problems: exactlyOne(list, id!, "filters id, insertion_order_id, active, in_flight and search name"),
        holds: "filter id, insertion_order_id, active, in_flight and search name find exactly the one",
      };
    },
  );
  return first;
}

/**
 * G2 in the dialect's words: a raw campaign answer asked for progress holds its member, with a
 * count of impressions and a Money spent; what differs names the key that adapts it.
 */
export function progressProblems(body: unknown, dialect: Dialect): { problems: string[]; keys: string[] } {
  const { member, impressions, spend, parameter } = dialect.progress;
  if (!isObj(body))
    return { problems: [`a campaign answer that is not an object (saw ${show(body)})`], keys: [] };
  const progress = body[member];
  if (progress === undefined) {
    // A member holding a count and a Money is progress under another name.
    const others = Object.keys(body).filter((m) => progressShaped(body[m]));
    if (others.length > 0) {
      return {
        problems: [
          `no "${member}" member with ${parameter}; progress-shaped: ${others.map(printable).join(", ")}`,
        ],
        keys: ["progress.member"],
      };
    }
    return {
      problems: [
        `${parameter} added no "${member}" member (saw members ${members(body)}): the DSP ignores the parameter, so it does not know it (G16), or holds progress under another member`,
      ],
      keys: ["progress.parameter", "progress.member"],
    };
  }
  if (!isObj(progress))
    return {
      problems: [`${member} is not an object (saw ${show(progress)})`],
      keys: ["progress.member"],
    };
  const contract = { impressions_delivered: progress[impressions], spend: moneyMembers(progress[spend]) };
  const issues = checkFragment({ $ref: "#/components/schemas/CampaignProgress" }, contract);
  const problems: string[] = [];
  const keys: string[] = [];
  for (const [name, key, contractName] of [
    [impressions, "progress.impressions", "impressions_delivered"],
    [spend, "progress.spend", "spend"],
  ] as const) {
    const issue = issues.find((i) => i.at === `/${contractName}` || i.at.startsWith(`/${contractName}/`));
    if (issue === undefined && Object.hasOwn(progress, name)) continue;
    const what = issue?.expected ?? "a required member, missing";
    problems.push(`${member}.${name} (saw ${show(progress[name])}: ${what}; members ${members(progress)})`);
    keys.push(key);
  }
  return { problems, keys };
}

/** G5: a campaign's targetings where the dialect reads them (or embedded), and their shape. */
async function targetingCheck(
  probe: Probe,
  input: ProbeInput,
  campaignId: string | undefined,
): Promise<void> {
  const missing = campaignId === undefined ? "no campaign to probe" : undefined;
  const { endpoints, dialect } = input;
  const spec = {
    id: "targetings",
    gap: "G5",
    title: "targetings read",
    change: `${ENDPOINTS}, G5`,
    reads: 1,
    missing,
  };
  const embedded = dialect.campaign_targetings;
  if (embedded !== null) {
    await probe.check(spec, async () => {
      const answer = await probe.read(endpoints.getCampaign(campaignId!).path);
      const problems: string[] = [];
      // The client judged the embedded list as a targetings answer (answer.ts) and put it back.
      if (!answer.ok) problems.push(failure(answer));
      else if (!isObj(answer.body) || !Array.isArray(answer.body.targetings))
        problems.push(`no "${embedded}" list (saw ${show(answer.body)})`);
      return {
        problems,
        holds: `GET /campaigns/${printable(campaignId!)} embeds {${embedded}: [option sets]}`,
        keys: keysOf(answer, [], { [embedded]: "campaign_targetings" }),
      };
    });
    return;
  }
  const member = dialect.targetings.member;
  await probe.check(spec, async () => {
    const answer = await probe.read(endpoints.getTargetings(campaignId!).path);
    const problems: string[] = [];
    if (!answer.ok) problems.push(failure(answer));
    else if (!isObj(answer.body) || !Array.isArray(answer.body.targetings))
      problems.push(`no "${member}" array (saw ${show(answer.body)})`);
    else problems.push(...targetingProblems(answer.body.targetings));
    const path = printable(dialect.targetings.read_path.replace("{id}", campaignId!));
    return {
      problems,
      holds: `GET ${path} answers {${member}: [option sets]}`,
      // Not there: another path, or the campaigns embed them. Not under its member: the member.
      keys: keysOf(answer, ["targetings.read_path", "campaign_targetings"], {
        targetings: "targetings.member",
      }),
    };
  });
}

const CREATIVE_FILTERS = [
  "advertiser_id",
  "type",
  "processing_status",
  "archived",
  "campaign_ids",
  "insertion_order_ids",
];

/** G6: the creative list, and every filter it names finding one creative. */
async function creativeCheck(probe: Probe): Promise<void> {
  const spec = {
    id: "creative-filters",
    gap: "G6",
    title: "creative list and filters",
    change: `${ENDPOINTS}, G6`,
  };
  await probe.check({ ...spec, reads: 2 }, async () => {
    const list = await probe.readList("creatives", dsp("/creatives"), [["page_size", "100"]]);
    const first = list.items[0];
    const id = idOf(first);
    const problems = [...list.problems];
    let holds = `{creatives, total_size}, ${list.total} in all`;
    if (first === undefined || id === undefined)
      return { problems, holds: `${holds}; no creative to probe the filters with` };
    problems.push(...memberProblems(CREATIVE_FIELDS, first).map((f) => `creative field ${f}`));
    const query = [["filter", `id:${id}`] as [string, string], ...filtersOf(first, CREATIVE_FILTERS)];
    const filtered = await probe.readList("creatives", dsp("/creatives"), query);
    problems.push(...exactlyOne(filtered, id, `the G6 filters of creative ${printable(id)}`));
    const names = query.map(([, entry]) => entry.slice(0, entry.indexOf(":")));
    holds += `; filters ${names.join(", ")} find exactly the one`;
    return { problems, holds };
  });
}

/** Spec, list envelope: each list's array is named after the resource. */
async function envelopeCheck(probe: Probe): Promise<void> {
  const spec = {
    id: "list-envelopes",
    gap: "spec",
    title: "list envelopes",
    change: `${ENDPOINTS}, spec "List envelope"`,
  };
  await probe.check({ ...spec, reads: 2 }, async () => {
    const problems: string[] = [];
    for (const envelope of ["advertisers", "creative_categories"]) {
      const list = await probe.readList(envelope, dsp(`/${envelope}`), [["page_size", "1"]]);
      problems.push(...list.problems.map((p) => `${envelope}: ${p}`));
    }
    return { problems, holds: "{advertisers, total_size} and {creative_categories, total_size}" };
  });
}

/** Spec, Errors: a missing object is 404 with the error shape. */
async function notFoundCheck(probe: Probe): Promise<void> {
  const spec = {
    id: "not-found",
    gap: "spec",
    title: "404 error shape",
    change: `src/api/answer.ts (error body) / ${CONTRACT}, spec "Errors"`,
  };
  await probe.check({ ...spec, reads: 1 }, async () => {
    const answer = await probe.read(dsp(`/campaigns/${ABSENT_ID}`));
    const problems: string[] = [];
    if (answer.ok) problems.push(`campaign ${ABSENT_ID} answered 200 (saw ${show(answer.body)})`);
    else if (answer.status !== 404 || answer.message !== "Not Found")
      problems.push(`a missing campaign ${failure(answer)}: expected 404 {"message": "Not Found"}`);
    return { problems, holds: '404 {"message": "Not Found"}' };
  });
}
