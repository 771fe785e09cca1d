/**
 * A dialect (docs/assumptions.md#dialect): what a real DSP may answer otherwise than G1, G2, G3
 * and G5 assume, as data; `DIALECT_KEYS` is its one table. A dialect moves a request only within
 * the DSP base path: a path of plain segments and `{id}`, never a URL or `..`.
 */

import { CAMPAIGN_FIELDS, INSERTION_ORDER_FIELDS } from "./resource-fields.js";
import { DSP_BASE_PATH } from "./wire.js";

/** A dialect, in the config's own words (snake_case, as `connection.dialect` writes it). */
export interface Dialect {
  /** G1: where insertion orders are listed (`GET path`) and read (`GET path/{id}`). */
  readonly insertion_orders_path: string;
  /** G1: the insertion order member that holds the contract number. */
  readonly contract_number: string;
  /** G2: the query parameter that asks for delivery progress, and the shape it answers. */
  readonly progress: {
    readonly parameter: string;
    readonly member: string;
    readonly impressions: string;
    readonly spend: string;
  };
  /** G5: where a campaign's targetings are read, and the member of that answer holding them. */
  readonly targetings: { readonly read_path: string; readonly member: string };
  /** G5, G14: the campaign member that embeds its targetings, when the DSP sends one. */
  readonly campaign_targetings: string | null;
  /** G3: the member of the POST /campaigns body (and of its answer) holding the campaigns. */
  readonly create_campaigns_member: string;
}

/** Today's gap decisions: what every key defaults to. */
export const DEFAULT_DIALECT: Dialect = {
  insertion_orders_path: "/insertion_orders",
  contract_number: "contract_number",
  progress: {
    parameter: "include_progress=true",
    member: "progress",
    impressions: "impressions_delivered",
    spend: "spend",
  },
  targetings: { read_path: "/campaigns/{id}/targetings", member: "targetings" },
  campaign_targetings: null,
  create_campaigns_member: "campaigns",
};

/** What a key's value is: a path template, a JSON member name (or null), one query parameter. */
export type DialectValueKind = "path" | "path-with-id" | "member" | "member-or-null" | "parameter";

export interface DialectKey {
  /** As the config writes it: `progress.member`. */
  readonly key: string;
  /** The gap decision it adapts. */
  readonly gap: "G1" | "G2" | "G3" | "G5";
  readonly kind: DialectValueKind;
  /** What it adapts, for docs and doctor. */
  readonly adapts: string;
  /** What to ask the DSP's support when doctor cannot establish it. */
  readonly ask: string;
}

/** Every key of a dialect, in the order the config writes them. */
export const DIALECT_KEYS: readonly DialectKey[] = [
  {
    key: "insertion_orders_path",
    gap: "G1",
    kind: "path",
    adapts: "the path that lists insertion orders; one is read at this path and `/{id}`",
    ask: "At which path under /api/dsp/v1 are insertion orders listed and read?",
  },
  {
    key: "contract_number",
    gap: "G1",
    kind: "member",
    adapts: "the insertion order member that holds the contract number",
    ask: "Which insertion order member holds the contract number?",
  },
  {
    key: "progress.parameter",
    gap: "G2",
    kind: "parameter",
    adapts: "the query parameter that adds delivery progress to campaign answers",
    ask: "Which query parameter of GET /campaigns adds delivery progress (impressions and spend)?",
  },
  {
    key: "progress.member",
    gap: "G2",
    kind: "member",
    adapts: "the campaign member that holds delivery progress",
    ask: "Which campaign member holds delivery progress?",
  },
  {
    key: "progress.impressions",
    gap: "G2",
    kind: "member",
    adapts: "the progress member that counts impressions delivered",
    ask: "Which progress member counts the impressions delivered?",
  },
  {
    key: "progress.spend",
    gap: "G2",
    kind: "member",
    adapts: "the progress member that holds the money spent (a Money)",
    ask: "Which progress member holds the money spent?",
  },
  {
    key: "targetings.read_path",
    gap: "G5",
    kind: "path-with-id",
    adapts: "the path that reads one campaign's targetings",
    ask: "At which path is one campaign's list of targetings read?",
  },
  {
    key: "targetings.member",
    gap: "G5",
    kind: "member",
    adapts: "the member of that answer that holds the targeting list",
    ask: "Which member of the targetings answer holds the list?",
  },
  {
    key: "campaign_targetings",
    gap: "G5",
    kind: "member-or-null",
    adapts: "the campaign member that embeds the campaign's targetings (then no targeting read is sent)",
    ask: "Do campaign answers embed their targetings, and under which member?",
  },
  {
    key: "create_campaigns_member",
    gap: "G3",
    kind: "member",
    adapts: "the member of the POST /campaigns body and answer that holds the campaigns",
    ask: "Which member of the POST /campaigns body holds the list of campaigns to create?",
  },
];

/** A key's value in a dialect (`progress.member` → "progress"). */
export function dialectValue(dialect: Dialect, key: string): string | null {
  let node: unknown = dialect;
  for (const part of key.split(".")) node = (node as Record<string, unknown>)[part];
  return node as string | null;
}

/** The keys whose value differs from today's decision, in table order. */
export function changedKeys(dialect: Dialect): string[] {
  return DIALECT_KEYS.filter(
    (k) => dialectValue(dialect, k.key) !== dialectValue(DEFAULT_DIALECT, k.key),
  ).map((k) => k.key);
}

/**
 * What an error about a member or parameter that `keys` place adds: the keys that adapt a DSP
 * answering it otherwise, and the command that proposes them (docs/doctor.md).
 */
export function dialectKeysHint(keys: readonly string[]): string {
  const named = keys.map((key) => `connection.dialect.${key}`).join(" or ");
  return `; a DSP that answers it otherwise is adapted by ${named} (doohctl doctor --suggest-dialect proposes what its reads can establish)`;
}

/** A JSON member name a DSP may use (`po-number`), never one that reaches an object's prototype. */
export const MEMBER_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const FORBIDDEN_MEMBERS = new Set(["__proto__", "constructor", "prototype"]);
/** A path segment: unreserved characters only (RFC 3986), so nothing to decode or escape. */
const SEGMENT = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/;
/** The one query parameter: `name=value`, both plain. */
export const PARAMETER = /^([A-Za-z_][A-Za-z0-9_.-]{0,63})=([A-Za-z0-9_.,~-]{1,64})$/;
/** The list parameters of every list (spec, "Common list query parameters"; G12). */
const LIST_PARAMETERS = new Set(["page", "page_size", "filter", "search", "order", "asc"]);

/** What is wrong with a value of `kind`, in words that say what to write; undefined when fine. */
export function dialectValueProblem(kind: DialectValueKind, value: unknown): string | undefined {
  if (kind === "member-or-null" && value === null) return undefined;
  if (typeof value !== "string") {
    return kind === "member-or-null" ? "must be a member name or null" : "must be a string";
  }
  if (kind === "member" || kind === "member-or-null") {
    if (!MEMBER_NAME.test(value)) {
      return "must be a JSON member name: letters, digits, `_`, `-` and `.` (1 to 64 of them)";
    }
    if (FORBIDDEN_MEMBERS.has(value)) {
      return "must not be __proto__, constructor or prototype: those names reach every object's prototype";
    }
    return undefined;
  }
  if (kind === "parameter") {
    const match = PARAMETER.exec(value);
    if (!match) return "must be one query parameter, `name=value` (for example `include_progress=true`)";
    if (LIST_PARAMETERS.has(match[1]!)) return `must not be a list parameter (${match[1]})`;
    return undefined;
  }
  return pathProblem(value, kind === "path-with-id");
}

/** A path template under the DSP base path: plain segments and `{id}`; never a URL, query or `..`. */
function pathProblem(value: string, withId: boolean): string | undefined {
  const advice = withId ? "for example `/campaigns/{id}/targetings`" : "for example `/insertion_orders`";
  if (!value.startsWith("/") || value.startsWith("//")) {
    return `must be a path under the DSP base path, starting with one \`/\` (${advice}), never a URL`;
  }
  // Written whole, as the DSP's documentation shows it: every request would miss (`/api/dsp/v1/api/dsp/v1/...`).
  if (value.startsWith(`${DSP_BASE_PATH}/`)) {
    return `is under ${DSP_BASE_PATH} already: write it without ${DSP_BASE_PATH} (\`${value.slice(DSP_BASE_PATH.length)}\`)`;
  }
  const segments = value.slice(1).split("/");
  let ids = 0;
  for (const segment of segments) {
    if (segment === "{id}") {
      ids++;
      continue;
    }
    if (!SEGMENT.test(segment) || segment === "..") {
      return `must hold plain segments only (letters, digits, \`-\`, \`_\`, \`.\`, \`~\`) and \`{id}\`: no \`..\`, query, \`%\` or empty segment (${advice})`;
    }
  }
  if (withId && ids !== 1) return `must hold \`{id}\` once, where the campaign id goes (${advice})`;
  if (!withId && ids !== 0)
    return `must not hold \`{id}\`: a single insertion order is read at this path and \`/{id}\``;
  return undefined;
}

/** A problem with a dialect as written: where (a key, `progress.member`) and what to write. */
export interface DialectProblem {
  readonly key: string;
  readonly message: string;
}

/** The keys as written: top-level ones, and the members of each group (`progress.member`). */
const TOP_KEYS = new Set(DIALECT_KEYS.map(({ key }) => key.split(".")[0]!));
const GROUP_KEYS: Record<string, string[]> = {};
for (const [group = "", member] of DIALECT_KEYS.map(({ key }) => key.split("."))) {
  if (member !== undefined) GROUP_KEYS[group] = [...(GROUP_KEYS[group] ?? []), member];
}

/**
 * A dialect from its written form (`connection.dialect`, the emulator's `--dialect`): each key
 * defaults to today's decision; or the problems: an unknown key, a bad value, a collision.
 */
export function parseDialect(raw: unknown): { dialect: Dialect } | { problems: DialectProblem[] } {
  const problems: DialectProblem[] = [];
  // `dialect:` (or `progress:`) with nothing but comments under it is YAML's null: every key
  // its default, so that a suggested block stays valid as its lines are uncommented (doctor.md).
  if (raw === null) return { dialect: DEFAULT_DIALECT };
  if (typeof raw !== "object" || Array.isArray(raw)) {
    return { problems: [{ key: "", message: "must be a mapping of dialect keys" }] };
  }
  const written = raw as Record<string, unknown>;
  for (const key of Object.keys(written)) {
    if (!TOP_KEYS.has(key))
      problems.push({ key, message: `is not a dialect key (${[...TOP_KEYS].join(", ")})` });
  }
  for (const [group, keys] of Object.entries(GROUP_KEYS)) {
    const value = Object.hasOwn(written, group) ? written[group] : undefined;
    if (value === undefined || value === null) continue;
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      problems.push({ key: group, message: `must be a mapping of ${keys.join(", ")}` });
      continue;
    }
    for (const key of Object.keys(value)) {
      if (!keys.includes(key))
        problems.push({ key: `${group}.${key}`, message: `is not a dialect key (${keys.join(", ")})` });
    }
  }
  if (problems.length > 0) return { problems };
  const values = new Map<string, unknown>();
  for (const { key, kind } of DIALECT_KEYS) {
    let node: unknown = written;
    for (const part of key.split(".")) {
      const parent = node as Record<string, unknown> | null | undefined;
      node = parent && Object.hasOwn(parent, part) ? parent[part] : undefined;
    }
    const value = node === undefined ? dialectValue(DEFAULT_DIALECT, key) : node;
    const problem = dialectValueProblem(kind, value);
    if (problem) problems.push({ key, message: problem });
    values.set(key, value);
  }
  if (problems.length > 0) return { problems };
  const get = (key: string) => values.get(key) as string;
  const dialect: Dialect = {
    insertion_orders_path: get("insertion_orders_path"),
    contract_number: get("contract_number"),
    progress: {
      parameter: get("progress.parameter"),
      member: get("progress.member"),
      impressions: get("progress.impressions"),
      spend: get("progress.spend"),
    },
    targetings: { read_path: get("targetings.read_path"), member: get("targetings.member") },
    campaign_targetings: values.get("campaign_targetings") as string | null,
    create_campaigns_member: get("create_campaigns_member"),
  };
  problems.push(...collisions(dialect));
  return problems.length > 0 ? { problems } : { dialect };
}

/** The reads the specification places itself, under the DSP base path (G6, G7). */
const SPEC_READS = [
  "/campaigns",
  "/campaigns/{id}",
  "/creatives",
  "/creatives/{id}",
  "/advertisers",
  "/advertisers/{id}",
  "/creative_categories",
  "/creative_categories/{id}",
];

/** Whether some path matches both templates: as many segments, each equal or one `{id}`. */
function overlap(a: string, b: string): boolean {
  const x = a.split("/");
  const y = b.split("/");
  return x.length === y.length && x.every((part, i) => part === y[i] || part === "{id}" || y[i] === "{id}");
}

/** Reads one path would reach twice, members one answer would hold twice: one read as the other. */
function collisions(dialect: Dialect): DialectProblem[] {
  const out: DialectProblem[] = [];
  const named = (fields: readonly { name: string }[], except?: string) =>
    new Set(fields.map((f) => f.name).filter((name) => name !== except));
  const ioFields = named(INSERTION_ORDER_FIELDS, "contract_number");
  const campaignFields = named(CAMPAIGN_FIELDS);
  if (ioFields.has(dialect.contract_number)) {
    out.push({
      key: "contract_number",
      message: `must not be another insertion order member (${dialect.contract_number})`,
    });
  }
  if (campaignFields.has(dialect.progress.member)) {
    out.push({
      key: "progress.member",
      message: `must not be another campaign member (${dialect.progress.member})`,
    });
  }
  if (dialect.campaign_targetings !== null && campaignFields.has(dialect.campaign_targetings)) {
    out.push({
      key: "campaign_targetings",
      message: `must not be another campaign member (${dialect.campaign_targetings})`,
    });
  }
  const reads = [
    { key: "insertion_orders_path", template: dialect.insertion_orders_path },
    { key: "insertion_orders_path", template: `${dialect.insertion_orders_path}/{id}` },
    { key: "targetings.read_path", template: dialect.targetings.read_path },
  ];
  const moved = (key: string) => dialectValue(dialect, key) !== dialectValue(DEFAULT_DIALECT, key);
  const blame = (key: string, other: string) => {
    if (out.some((p) => p.key === key)) return;
    out.push({
      key,
      message: `must not reach the same paths as ${other}: a request could not say which it reads`,
    });
  };
  for (const [i, read] of reads.entries()) {
    const spec = SPEC_READS.find((template) => overlap(template, read.template));
    if (spec !== undefined) blame(read.key, spec);
    for (const later of reads.slice(i + 1)) {
      if (later.key === read.key || !overlap(later.template, read.template)) continue;
      // The key moved from its default is the one to change.
      if (moved(later.key)) blame(later.key, read.template);
      else blame(read.key, later.template);
    }
  }
  if (dialect.progress.impressions === dialect.progress.spend) {
    out.push({ key: "progress.spend", message: "must differ from progress.impressions" });
  }
  if (dialect.campaign_targetings !== null && dialect.campaign_targetings === dialect.progress.member) {
    out.push({ key: "campaign_targetings", message: "must differ from progress.member" });
  }
  return out;
}
