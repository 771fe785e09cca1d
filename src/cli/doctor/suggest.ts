/**
 * `doohctl doctor --suggest-dialect` (docs/doctor.md): what raw GETs establish of a DSP's
 * dialect (G1, G2, G5): each key holds, is established, or not (with what to ask support).
 * Only member names a dialect may hold are taken from an answer, never a value.
 */
import { endpointsFor } from "../../api/endpoints.js";
import {
  DEFAULT_DIALECT,
  DIALECT_KEYS,
  type Dialect,
  dialectValue,
  dialectValueProblem,
} from "../../model/dialect.js";
import { printable } from "../../model/printable.js";
import { CAMPAIGN_FIELDS, INSERTION_ORDER_FIELDS } from "../../model/resource-fields.js";
import { TARGETING_OPTIONS } from "../../model/targeting-members.js";
import { DSP_BASE_PATH } from "../../model/wire.js";
import { failed, listIn, names, paging, type Read } from "./outside.js";
import { type Answer, Probe, type ProbeInput } from "./probe.js";
import { isCount, isMoney, isObj, type Obj, progressShaped } from "./seen.js";

export type KeyStatus = "holds" | "established" | "not established" | "unused";

export interface KeyFinding {
  /** As the config writes it: `progress.member`. */
  key: string;
  status: KeyStatus;
  /** The value to write: what was seen, or kept from the config when nothing was. */
  value: string | null;
  /** What was seen, or why nothing could be. Printable text. */
  detail: string;
  /** What to ask the DSP's support (DIALECT_KEYS), when not established. */
  ask?: string;
}

/** Where else insertion orders may be listed, when the configured path and G1's answer 404. */
const INSERTION_ORDER_PATHS = ["/insertion-orders", "/orders"];
/** Spellings of the progress parameter tried after the configured one and G2's. */
const PROGRESS_PARAMETERS = [
  "include_progress=true",
  "with_progress=true",
  "include=progress",
  "expand=progress",
  "fields=progress",
];
const OPTION_MEMBERS = new Set<string>(TARGETING_OPTIONS.map((o) => o.member));

const dsp = (path: string) => `${DSP_BASE_PATH}${path}`;

/** What the probes found of each key, and where the DSP differs beyond any key (`outside`). */
export async function suggestDialect(input: ProbeInput): Promise<{ keys: KeyFinding[]; outside: string[] }> {
  const probe = new Probe(input);
  const outside: string[] = [];
  const found = new Map<string, Omit<KeyFinding, "key" | "ask">>();
  const dialect = input.dialect;
  const seen = (key: string, value: string | null, detail: string) =>
    found.set(key, {
      status: value === dialectValue(DEFAULT_DIALECT, key) ? "holds" : "established",
      value,
      detail,
    });
  const notSeen = (keys: readonly string[], detail: string) => {
    for (const key of keys) {
      if (!found.has(key)) found.set(key, { status: "not established", value: null, detail });
    }
  };
  const read = async (path: string, query: Array<[string, string]> = []): Promise<Answer | string> => {
    const why = probe.stop;
    return why ?? probe.read(path, query, { raw: true });
  };

  await insertionOrders(read, dialect, seen, notSeen, outside);
  const campaign = await campaigns(read, dialect, seen, notSeen, outside);
  if (campaign !== undefined) await progress(read, dialect, campaign, seen, notSeen);
  else notSeen(PROGRESS_KEYS, "no campaign to look at");
  if (found.get("campaign_targetings")?.value) {
    const detail = "not read: campaign answers embed their targetings (campaign_targetings)";
    for (const key of TARGETING_KEYS) found.set(key, { status: "unused", value: null, detail });
  } else if (campaign !== undefined) {
    await targetings(read, dialect, campaign, seen, notSeen);
  } else notSeen(TARGETING_KEYS, "no campaign to look at");
  notSeen(["create_campaigns_member"], "a GET cannot show it: only a POST /campaigns would");
  // Last, as the least a small budget should buy: whether the DSP pages as G12 says.
  if (campaign !== undefined) await paging(read, outside);

  const keys = DIALECT_KEYS.map(({ key, ask }) => {
    const finding = found.get(key)!;
    if (finding.status === "holds" || finding.status === "established") return { key, ...finding };
    // Nothing seen: the config's value stays what is written (a paste keeps it).
    const kept = { key, ...finding, value: dialectValue(dialect, key) };
    return finding.status === "unused" ? kept : { ...kept, ask };
  });
  return { keys, outside };
}

/** A path from the dialect's endpoints, or why it cannot be sent (an id of `.` or `..`). */
function pathOf(build: () => { path: string }): { path: string } | { refused: string } {
  try {
    return { path: build().path };
  } catch (error) {
    return { refused: (error as Error).message };
  }
}

type Seen = (key: string, value: string | null, detail: string) => void;
type NotSeen = (keys: readonly string[], detail: string) => void;

const PROGRESS_KEYS = ["progress.parameter", "progress.member", "progress.impressions", "progress.spend"];
const TARGETING_KEYS = ["targetings.read_path", "targetings.member"];

/** G1: the list path (configured, G1's, then likely others while 404), then the contract number's member. */
async function insertionOrders(
  read: Read,
  dialect: Dialect,
  seen: Seen,
  notSeen: NotSeen,
  outside: string[],
): Promise<void> {
  const paths = [
    ...new Set([
      dialect.insertion_orders_path,
      DEFAULT_DIALECT.insertion_orders_path,
      ...INSERTION_ORDER_PATHS,
    ]),
  ];
  const tried: string[] = [];
  let items: Obj[] | undefined;
  for (const path of paths) {
    const answer = await read(dsp(path), [["page_size", "100"]]);
    const why = failed(answer);
    tried.push(path);
    if (why === undefined) {
      const body = (answer as Answer & { ok: true }).body;
      const list = listIn(body, "insertion_orders", `GET ${path}`, outside);
      if (list !== undefined) {
        items = list;
        seen("insertion_orders_path", path, `GET ${path} answers a list of insertion orders`);
        break;
      }
      notSeen(["insertion_orders_path"], `GET ${path} answered no list of insertion orders`);
      break;
    }
    if (typeof answer === "string" || answer.ok || answer.status !== 404) {
      notSeen(["insertion_orders_path"], `GET ${path}: ${why}`);
      break;
    }
  }
  if (items === undefined) {
    notSeen(["insertion_orders_path"], `${names(tried)} answered 404`);
    notSeen(["contract_number"], "no insertion order list to look at");
    return;
  }
  if (items.length === 0) {
    notSeen(["contract_number"], "no insertion order to look at");
    return;
  }
  const candidates = contractNumberCandidates(items);
  if (candidates.length === 1) {
    const [member] = candidates as [string];
    seen(
      "contract_number",
      member,
      member === DEFAULT_DIALECT.contract_number
        ? `every insertion order has ${member}`
        : `the one string-or-null member of every insertion order the contract does not name`,
    );
  } else {
    notSeen(
      ["contract_number"],
      candidates.length === 0
        ? "no string-or-null member of every insertion order that the contract does not name"
        : `several members could be it: ${names(candidates)}`,
    );
  }
}

/** Members every item has as a string or null that the contract does not name; `contract_number` first. */
export function contractNumberCandidates(items: readonly Obj[]): string[] {
  const named = new Set<string>(
    INSERTION_ORDER_FIELDS.map((f) => f.name).filter((n) => n !== "contract_number"),
  );
  const stringy = (member: string) =>
    items.every(
      (item) => Object.hasOwn(item, member) && (typeof item[member] === "string" || item[member] === null),
    );
  const members = [...new Set(items.flatMap((item) => Object.keys(item)))].filter(
    (m) => !named.has(m) && dialectValueProblem("member", m) === undefined && stringy(m),
  );
  return members.includes(DEFAULT_DIALECT.contract_number) ? [DEFAULT_DIALECT.contract_number] : members;
}

/** G5: the member campaigns embed option sets under, if any; returns the first campaign. */
async function campaigns(
  read: Read,
  dialect: Dialect,
  seen: Seen,
  notSeen: NotSeen,
  outside: string[],
): Promise<Obj | undefined> {
  const answer = await read(dsp("/campaigns"), [["page_size", "100"]]);
  const why = failed(answer);
  if (why !== undefined) {
    notSeen(["campaign_targetings", ...PROGRESS_KEYS, ...TARGETING_KEYS], `GET /campaigns: ${why}`);
    return undefined;
  }
  const body = (answer as Answer & { ok: true }).body;
  const items = listIn(body, "campaigns", "GET /campaigns", outside) ?? [];
  const first = items.find((c) => typeof c.id === "string");
  if (first === undefined) {
    notSeen(["campaign_targetings"], "no campaign to look at");
    return undefined;
  }
  const embedding = embeddedMembers(items);
  const configured = dialect.campaign_targetings;
  if (embedding.length === 1) {
    seen(
      "campaign_targetings",
      embedding[0]!,
      `campaign answers hold option sets under ${printable(embedding[0]!)}`,
    );
  } else if (embedding.length > 1) {
    notSeen(["campaign_targetings"], `several members hold option sets: ${names(embedding)}`);
  } else if (configured !== null && items.some((c) => Array.isArray(c[configured]))) {
    // Only empty lists under the configured member: targetings never set, or not targetings.
    notSeen(["campaign_targetings"], `only empty lists under ${configured}`);
  } else {
    seen("campaign_targetings", null, `none of ${items.length} campaign answers holds option sets`);
  }
  return first;
}

/** Members the contract's Campaign does not name whose value is a list of option sets. */
export function embeddedMembers(campaigns: readonly Obj[]): string[] {
  const named = new Set<string>(CAMPAIGN_FIELDS.map((f) => f.name));
  const out = new Set<string>();
  for (const campaign of campaigns) {
    for (const [member, value] of Object.entries(campaign)) {
      if (named.has(member) || dialectValueProblem("member-or-null", member) !== undefined) continue;
      if (Array.isArray(value) && value.length > 0 && value.every(isOptionSet)) out.add(member);
    }
  }
  return [...out];
}

const isOptionSet = (value: unknown) => isObj(value) && Object.keys(value).some((m) => OPTION_MEMBERS.has(m));

/** G2: a member a parameter spelling adds to the campaign's answer, holding an integer and a Money. */
async function progress(
  read: Read,
  dialect: Dialect,
  campaign: Obj,
  seen: Seen,
  notSeen: NotSeen,
): Promise<void> {
  const at = pathOf(() => endpointsFor(dialect).getCampaign(String(campaign.id)));
  if ("refused" in at) return notSeen(PROGRESS_KEYS, printable(at.refused));
  const path = at.path;
  const plain = await read(path);
  const why = failed(plain);
  if (why !== undefined) return notSeen(PROGRESS_KEYS, `GET /campaigns/{id}: ${why}`);
  const without = (plain as Answer & { ok: true }).body;
  const before = new Set(isObj(without) ? Object.keys(without) : []);
  const tried: string[] = [];
  // G16: a DSP refuses a parameter it does not know (400, 422) or ignores it (no member added).
  const refused: string[] = [];
  for (const parameter of new Set([dialect.progress.parameter, ...PROGRESS_PARAMETERS])) {
    const [name, value] = parameter.split("=") as [string, string];
    const answer = await read(path, [[name, value]]);
    if (typeof answer === "string") {
      return notSeen(PROGRESS_KEYS, tried.length > 0 ? `tried ${names(tried)}; then ${answer}` : answer);
    }
    tried.push(parameter);
    if (!answer.ok && (answer.status === 400 || answer.status === 422)) refused.push(parameter);
    if (!answer.ok || !isObj(answer.body)) continue;
    const body = answer.body;
    const added = Object.keys(body).filter(
      (m) => !before.has(m) && dialectValueProblem("member", m) === undefined && progressShaped(body[m]),
    );
    if (added.length !== 1) continue;
    const member = added[0]!;
    const inside = body[member] as Obj;
    const detail = `GET /campaigns/{id}?${parameter} adds ${printable(member)}, which the answer without it lacks`;
    seen("progress.parameter", parameter, detail);
    seen("progress.member", member, detail);
    pick(seen, notSeen, "progress.impressions", inside, dialect.progress.impressions, isCount, "an integer");
    pick(seen, notSeen, "progress.spend", inside, dialect.progress.spend, isMoney, "a Money");
    return;
  }
  const answered = tried.filter((p) => !refused.includes(p));
  const how = [
    ...(refused.length > 0 ? [`refused: ${names(refused)}`] : []),
    ...(answered.length > 0 ? [`answered without one: ${names(answered)}`] : []),
  ];
  notSeen(
    PROGRESS_KEYS,
    `no parameter tried added a member holding an integer and a Money (${how.join("; ")})`,
  );
}

/** The member of `inside` that is `what`: the configured one, G2's, else the only one. */
function pick(
  seen: Seen,
  notSeen: NotSeen,
  key: string,
  inside: Obj,
  configured: string,
  is: (value: unknown) => boolean,
  what: string,
): void {
  const all = Object.keys(inside).filter(
    (m) => dialectValueProblem("member", m) === undefined && is(inside[m]),
  );
  const preferred = [configured, dialectValue(DEFAULT_DIALECT, key)!].find((m) => all.includes(m));
  const member = preferred ?? (all.length === 1 ? all[0] : undefined);
  if (member !== undefined) seen(key, member, `${printable(member)} holds ${what}`);
  else
    notSeen(
      [key],
      all.length === 0
        ? `no member of the progress holds ${what}`
        : `several members hold ${what}: ${names(all)}`,
    );
}

/** G5: the configured read path, and the member of its answer holding the option sets. */
async function targetings(
  read: Read,
  dialect: Dialect,
  campaign: Obj,
  seen: Seen,
  notSeen: NotSeen,
): Promise<void> {
  const at = pathOf(() => endpointsFor(dialect).getTargetings(String(campaign.id)));
  if ("refused" in at) return notSeen(TARGETING_KEYS, printable(at.refused));
  const path = at.path.slice(DSP_BASE_PATH.length);
  const answer = await read(at.path);
  const why = failed(answer);
  if (why !== undefined) return notSeen(TARGETING_KEYS, `GET ${printable(path)}: ${why}`);
  const body = (answer as Answer & { ok: true }).body;
  const lists = isObj(body)
    ? Object.keys(body).filter(
        (m) =>
          dialectValueProblem("member", m) === undefined &&
          Array.isArray(body[m]) &&
          (body[m] as unknown[]).every(isOptionSet),
      )
    : [];
  const member = lists.includes(dialect.targetings.member)
    ? dialect.targetings.member
    : lists.length === 1
      ? lists[0]
      : undefined;
  if (member === undefined) {
    notSeen(TARGETING_KEYS, `GET ${printable(path)} answered no one list of option sets`);
    return;
  }
  seen("targetings.read_path", dialect.targetings.read_path, `GET ${printable(path)} answers`);
  seen("targetings.member", member, `its ${printable(member)} is a list of option sets`);
}
