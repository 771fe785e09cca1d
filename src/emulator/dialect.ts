/**
 * Serving a dialect (docs/emulator.md, "Dialects"): where a DSP answers G1, G2, G3 or G5 otherwise
 * (src/model/dialect.ts). The routes and the store speak the gap decisions only; this translates
 * at the edge: a request's path, query and body into the canonical form before the handler, its
 * refusals and answer into the dialect's names and shape after it. The control path never passes
 * here, so its state stays canonical under any dialect.
 *
 * Member renames are swaps, exchanged both ways by one table; the canonical name sent to a DSP that
 * uses another reaches the handler as an unknown member, refused as any is (G4).
 */
import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import { DEFAULT_DIALECT, type Dialect, parseDialect } from "../model/dialect.js";
import { type ApiFieldError, DSP_BASE_PATH } from "../model/wire.js";
import type { Handler, Reply, RequestContext } from "./context.js";
import { LenientQuery } from "./departures.js";
import { DialectError, HttpError, Issues } from "./errors.js";
import { isPlainObject } from "./fields.js";
import type { Store } from "./store.js";

const IO_LIST = `${DSP_BASE_PATH}/insertion_orders`;
const IO_ONE = `${IO_LIST}/:id`;
const CAMPAIGNS = `${DSP_BASE_PATH}/campaigns`;
const CAMPAIGN = `${CAMPAIGNS}/:id`;
const TARGETINGS = `${CAMPAIGN}/targetings`;
/** G2's own progress parameter, the one the campaign routes read. */
const PROGRESS_FLAG = "include_progress";
const UNKNOWN_PROPERTY = "is not a known property";

/** A canonical member name and the dialect's, exchanged both ways. */
type Swap = readonly [canonical: string, dialect: string];

/** The swap of a key, or none where the dialect keeps the canonical name. */
function swapOf(canonical: string, dialect: string): Swap[] {
  return canonical === dialect ? [] : [[canonical, dialect]];
}

function swapped(name: string, swaps: readonly Swap[]): string {
  for (const [a, b] of swaps) {
    if (name === a) return b;
    if (name === b) return a;
  }
  return name;
}

/** The object with its members renamed by `swaps`, in their order; anything else as it is. */
function swapMembers(value: unknown, swaps: readonly Swap[]): unknown {
  if (swaps.length === 0 || !isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [swapped(key, swaps), member]));
}

/** `{<envelope>: [items]}` with each item mapped; anything else (a malformed body) as it is. */
function eachItem(value: unknown, envelope: string, map: (item: unknown) => unknown): unknown {
  if (!isPlainObject(value)) return value;
  const items = value[envelope];
  return Array.isArray(items) ? { ...value, [envelope]: items.map(map) } : value;
}

/** How an operation's refusals name fields: `campaigns[3].cpm` in a batch, `cpm` for one object. */
interface FieldNames {
  batch?: boolean;
  /** Swap of the batch envelope itself (G3's create member). */
  envelope?: readonly Swap[];
  /** Swaps of the members of an item, or of the one object. */
  members: readonly Swap[];
  /** The dialect's read-only member: the handler does not know it, the dialect's DSP calls it read-only. */
  readOnly?: string | null;
}

/** `[item prefix, member, rest]` of a field: `["campaigns[3].", "cpm", ".units"]`. */
function splitField(field: string, batch: boolean): [string, string, string] | undefined {
  const match = (batch ? /^([^.[]+\[\d+\]\.)([^.[]+)(.*)$/s : /^()([^.[]+)(.*)$/s).exec(field);
  return match ? [match[1]!, match[2]!, match[3]!] : undefined;
}

function renamed(error: ApiFieldError, names: FieldNames): ApiFieldError {
  let { field, messages } = error;
  const parts = splitField(field, names.batch === true);
  if (parts) {
    const [prefix, member, rest] = parts;
    if (member === names.readOnly && rest === "") {
      messages = messages.map((m) => (m === UNKNOWN_PROPERTY ? "is read-only" : m));
    }
    field = `${prefix}${swapped(member, names.members)}${rest}`;
  }
  const envelope = names.envelope;
  if (envelope !== undefined) field = field.replace(/^[^.[]+/, (head) => swapped(head, envelope));
  return { field, messages };
}

/** What the dialect changes of one operation (method and route pattern). */
interface Operation {
  /** The request body as the handler reads it. */
  body?: (body: unknown) => unknown;
  /** How its refusals name fields. */
  fields: FieldNames;
  /** G2: the operation takes the dialect's progress parameter instead of `include_progress`. */
  progress?: boolean;
  /** The successful answer as the dialect's DSP writes it. */
  answer?: (body: unknown, store: Store) => unknown;
}

/** A GET the dialect moves: the request paths it answers, and the canonical path of each. */
interface MovedRead {
  from: RegExp;
  to: (id: string) => string;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A path template of the dialect (`/campaigns/{id}/targetings`) as a regex of the request path. */
function templateRegExp(template: string): RegExp {
  const source = template
    .split("/")
    .map((segment) => (segment === "{id}" ? "([^/]+)" : escapeRegExp(segment)))
    .join("/");
  return new RegExp(`^${source}$`);
}

export class ServedDialect {
  private readonly operations = new Map<string, Operation>();
  private readonly moved: MovedRead[] = [];
  /** The default GET paths the dialect moved away: a DSP that differs does not serve our guess. */
  private readonly hidden: RegExp[] = [];
  /** G2: the dialect's progress parameter, when it differs. */
  private readonly parameter: readonly [name: string, value: string] | undefined;

  constructor(readonly dialect: Dialect) {
    const d = dialect;
    const io = d.insertion_orders_path;
    if (io !== DEFAULT_DIALECT.insertion_orders_path) {
      const at = `${DSP_BASE_PATH}${io}`;
      this.moved.push({ from: templateRegExp(at), to: () => IO_LIST });
      this.moved.push({ from: templateRegExp(`${at}/{id}`), to: (id) => `${IO_LIST}/${id}` });
      this.hidden.push(new RegExp(`^${escapeRegExp(IO_LIST)}(?:/[^/]+)?$`));
    }
    if (d.targetings.read_path !== DEFAULT_DIALECT.targetings.read_path) {
      this.moved.push({
        from: templateRegExp(`${DSP_BASE_PATH}${d.targetings.read_path}`),
        to: (id) => `${CAMPAIGNS}/${id}/targetings`,
      });
      this.hidden.push(new RegExp(`^${escapeRegExp(CAMPAIGNS)}/[^/]+/targetings$`));
    }
    if (d.progress.parameter !== DEFAULT_DIALECT.progress.parameter) {
      const [name = "", value = ""] = d.progress.parameter.split("=");
      this.parameter = [name, value];
    }

    const order = swapOf("contract_number", d.contract_number);
    const progress = swapOf("progress", d.progress.member);
    const inner = [
      ...swapOf("impressions_delivered", d.progress.impressions),
      ...swapOf("spend", d.progress.spend),
    ];
    const envelope = swapOf("campaigns", d.create_campaigns_member);
    const listed = swapOf("targetings", d.targetings.member);
    const embedded = d.campaign_targetings;

    if (order.length > 0) {
      const out = (value: unknown) => swapMembers(value, order);
      const list = (body: unknown) => eachItem(body, "insertion_orders", out);
      this.add("GET", IO_LIST, { fields: { members: [] }, answer: list });
      this.add("GET", IO_ONE, { fields: { members: [] }, answer: out });
      this.add("PATCH", IO_LIST, { body: list, fields: { batch: true, members: order }, answer: list });
      this.add("PATCH", IO_ONE, { body: out, fields: { members: order }, answer: out });
    }

    /** A campaign as the dialect's DSP answers it: its progress renamed, its targetings embedded. */
    const campaign = (store: Store) => (value: unknown) => {
      if (!isPlainObject(value)) return value;
      const withInner = isPlainObject(value.progress)
        ? { ...value, progress: swapMembers(value.progress, inner) }
        : value;
      const out = swapMembers(withInner, progress) as Record<string, unknown>;
      if (embedded === null || typeof value.id !== "string") return out;
      return { ...out, [embedded]: structuredClone(store.targetings.get(value.id) ?? []) };
    };
    const campaigns = (body: unknown, store: Store) => eachItem(body, "campaigns", campaign(store));
    const writtenCampaign = (value: unknown) => swapMembers(value, progress);
    const reads = progress.length + inner.length > 0 || embedded !== null;
    const writes = progress.length > 0 || embedded !== null;

    if (reads || this.parameter !== undefined) {
      // Query refusals name the dialect's parameter, never the canonical one it stands for.
      const fields = { members: this.parameter ? swapOf(PROGRESS_FLAG, this.parameter[0]) : [] };
      const one = (body: unknown, store: Store) => campaign(store)(body);
      this.add("GET", CAMPAIGNS, { fields, progress: true, ...(reads ? { answer: campaigns } : {}) });
      this.add("GET", CAMPAIGN, { fields, progress: true, ...(reads ? { answer: one } : {}) });
    }
    if (writes || envelope.length > 0) {
      this.add("POST", CAMPAIGNS, {
        body: (body) => eachItem(swapMembers(body, envelope), "campaigns", writtenCampaign),
        fields: { batch: true, envelope, members: progress, readOnly: embedded },
        answer: (body, store) => swapMembers(campaigns(body, store), envelope),
      });
    }
    if (writes) {
      this.add("PATCH", CAMPAIGNS, {
        body: (body) => eachItem(body, "campaigns", writtenCampaign),
        fields: { batch: true, members: progress, readOnly: embedded },
        answer: campaigns,
      });
      this.add("PATCH", CAMPAIGN, {
        body: writtenCampaign,
        fields: { members: progress, readOnly: embedded },
        answer: (body, store) => campaign(store)(body),
      });
    }
    if (listed.length > 0) {
      this.add("GET", TARGETINGS, { fields: { members: [] }, answer: (body) => swapMembers(body, listed) });
    }
  }

  private add(method: string, pattern: string, operation: Operation): void {
    this.operations.set(`${method} ${pattern}`, operation);
  }

  /** The canonical path of a request, or undefined where the dialect's DSP serves nothing (404). */
  path(method: string, path: string): string | undefined {
    if (method !== "GET") return path;
    for (const { from, to } of this.moved) {
      const found = from.exec(path);
      if (found) return to(found[1] ?? "");
    }
    return this.hidden.some((regex) => regex.test(path)) ? undefined : path;
  }

  /** The handler's reply to the request in canonical form; its refusals name the dialect's fields. */
  handle(method: string, pattern: string, ctx: RequestContext, handler: Handler): Reply {
    const operation = this.operations.get(`${method} ${pattern}`);
    if (operation === undefined) return handler(ctx);
    const own = new Issues();
    let canonical = ctx;
    if (operation.progress && this.parameter !== undefined) {
      canonical = { ...canonical, query: this.progressQuery(ctx.query, own) };
    }
    const read = operation.body;
    if (read !== undefined) {
      let body: { value: unknown } | undefined;
      canonical = {
        ...canonical,
        json: () => {
          body ??= { value: read(ctx.json()) };
          return body.value;
        },
      };
    }
    let reply: Reply;
    try {
      reply = handler(canonical);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      // As the handler itself does: a bad query parameter is answered before a missing object.
      if (error.status !== 422) {
        own.throwIfAny();
        throw error;
      }
      const data = (error.data ?? []).map((e) => renamed(e, operation.fields));
      throw new HttpError(422, { message: error.message, data: [...own.toData(), ...data] });
    }
    own.throwIfAny();
    return reply;
  }

  /**
   * G2: the query as the campaign routes read it. The dialect's exact parameter stands for
   * `include_progress=true`; its name with another value, and `include_progress` itself, are refused.
   */
  private progressQuery(query: URLSearchParams, own: Issues): URLSearchParams {
    const [name, value] = this.parameter!;
    // G16: a DSP that ignores parameters it does not know ignores `include_progress` too.
    const lenient = query instanceof LenientQuery;
    const out = lenient ? new LenientQuery() : new URLSearchParams();
    for (const [n, v] of query) {
      if (n === name) {
        if (v === value) out.append(PROGRESS_FLAG, "true");
        else own.add(n, `must be ${value}`);
      } else if (n === PROGRESS_FLAG) {
        if (!lenient) own.add(n, "is not a known parameter");
      } else out.append(n, v);
    }
    return out;
  }

  /** A successful answer as the dialect's DSP writes it; refusals and other operations as they are. */
  answer(method: string, pattern: string, reply: Reply, store: Store): Reply {
    const operation = this.operations.get(`${method} ${pattern}`);
    if (operation?.answer === undefined || reply.status < 200 || reply.status >= 300) return reply;
    const body: unknown = reply.raw !== undefined ? JSON.parse(reply.raw) : reply.body;
    if (body === undefined) return reply;
    const { raw: _raw, ...rest } = reply;
    return { ...rest, body: operation.answer(body, store) };
  }
}

/** The dialect, checked; a DialectError naming `source` and each key otherwise. */
export function checkedDialect(raw: unknown, source: string): Dialect {
  const read = parseDialect(raw);
  if ("problems" in read) throw new DialectError(source, read.problems);
  return read.dialect;
}

/**
 * `doohctl emulator --dialect FILE`: YAML or JSON holding the dialect, or a config's dialect file
 * (under a top-level `dialect:`, docs/connecting.md). Errors name the file and the key, never what
 * else the file holds: no parser message (they quote the text), only where it failed.
 */
export async function loadDialectFile(path: string, shown = path): Promise<Dialect> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new DialectError(shown, [{ key: "", message: `cannot be read (${code}): check the path` }]);
  }
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    // Its message quotes the lines around the fault: only the place is told.
    const at = (error as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    const where = at === undefined ? "" : ` (line ${at.line}, column ${at.col})`;
    throw new DialectError(shown, [{ key: "", message: `is not valid YAML or JSON${where}` }]);
  }
  const keys = typeof value === "object" && value !== null ? Object.keys(value) : [];
  const wrapped = keys.includes("dialect") && keys.every((k) => k === "dialect" || k.startsWith("x-"));
  return checkedDialect(wrapped ? (value as { dialect: unknown }).dialect : value, shown);
}
