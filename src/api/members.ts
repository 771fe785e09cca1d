/**
 * G14 (docs/assumptions.md#g14): which members of each answer doohctl decides with. A member
 * it does not decide with, or one G14 lets a DSP leave unset, may be absent or `null` (read as
 * unset); any other member the contract names that is absent, forbidden `null` or mistyped
 * stops the run before any write. A schema not listed here has every member decided with.
 */
import type { Dialect } from "../model/dialect.js";
import { DSP_BASE_PATH } from "../model/wire.js";
import type { HttpMethod } from "./request.js";

/** Per answer schema: members doohctl does not decide with. */
export const UNDECIDED_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  InsertionOrder: ["name"],
  Creative: ["create_time", "name", "thumbnail_url", "duration_ms", "type", "requires_audio", "asset"],
  CreativeAuditEntry: ["message", "last_reviewed"],
  CreativeAsset: ["url", "height", "width", "format", "file_size_bytes"],
  Advertiser: ["name"],
  CreativeCategory: ["name"],
  Network: ["name"],
  SessionInfo: ["email", "account_id", "expires_at"],
  MediaOwnerCreative: [
    "external_id",
    "network_id",
    "name",
    "processing_status",
    "advertiser_id",
    "thumbnail_url",
    "duration_ms",
    "seat_id",
    "bidder_id",
    "max_assets_per_day",
    "type",
    "update_time",
    "archived",
  ],
  MediaOwnerAudit: ["message", "category_ids", "tag_ids", "create_time", "last_reviewed", "last_reviewer"],
};

/** Per answer schema: members doohctl decides with that G14 lets a DSP leave unset. */
export const UNSET_ALLOWED_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  // G14: an unset URL reads as "" (no pixel), what the config's `pixel_url` compares against.
  Creative: ["pixel_url", "audits"],
};

/** Whether doohctl may read `member` of `schema` as unset when it is absent or `null`. */
export function unsetAllowed(schema: string, member: string): boolean {
  return (
    (UNDECIDED_MEMBERS[schema]?.includes(member) ?? false) ||
    (UNSET_ALLOWED_MEMBERS[schema]?.includes(member) ?? false)
  );
}

/**
 * A dialect's answer in the contract's names (src/model/dialect.ts; G1, G2, G3, G5), before the
 * contract judges it. A member the contract names that the dialect places elsewhere is dropped
 * first: it is not what the DSP means by it. With `campaign_targetings`, each campaign's list
 * is taken out and returned by campaign id, to be judged and put back (answer.ts); a read's
 * campaign without one is `missing`.
 */
export function contractAnswer(
  dialect: Dialect,
  method: HttpMethod,
  template: string,
  body: unknown,
): { body: unknown; embedded?: Map<string, unknown>; missing?: string[] } {
  const op = template.slice(DSP_BASE_PATH.length);
  if (!isObject(body)) return { body };
  if (op === "/insertion_orders" || op === "/insertion_orders/{id}") {
    const rename = (io: unknown) => move(io, dialect.contract_number, "contract_number");
    return { body: op === "/insertion_orders" ? eachOf(body, "insertion_orders", rename) : rename(body) };
  }
  if (op === "/campaigns/{campaign_id}/targetings" && method === "GET") {
    return { body: move(body, dialect.targetings.member, "targetings") };
  }
  if (op !== "/campaigns" && op !== "/campaigns/{id}") return { body };
  const embedded = dialect.campaign_targetings === null ? undefined : new Map<string, unknown>();
  const missing: string[] = [];
  const campaign = (c: unknown) => {
    if (!isObject(c)) return c;
    let out: Record<string, unknown> = c;
    const { member, impressions, spend } = dialect.progress;
    if (member !== "progress" || impressions !== "impressions_delivered" || spend !== "spend") {
      out = move(out, member, "progress") as Record<string, unknown>;
      if (isObject(out.progress)) {
        // At once: a dialect may exchange the two names (the emulator serves such a swap).
        const progress = moveAll(out.progress, [
          [impressions, "impressions_delivered"],
          [spend, "spend"],
        ]);
        out = { ...out, progress };
      }
    }
    if (embedded && dialect.campaign_targetings !== null) {
      // From the answer as it came: the member may be the one progress was moved to.
      const list = ownMember(c, dialect.campaign_targetings);
      const { [dialect.campaign_targetings]: _taken, ...others } = out;
      const rest = dialect.campaign_targetings === "progress" && member !== "progress" ? out : others;
      const id = typeof out.id === "string" ? out.id : undefined;
      if (id !== undefined && list !== undefined && list !== null) embedded.set(id, list);
      // G14: only a read's lists are decided with (plan, write guard); a write's answer may
      // leave them out, or a write the DSP carried out would read as failed.
      else if (method === "GET") missing.push(id ?? "(no id)");
      out = rest;
    }
    return out;
  };
  const created = method === "POST" && op === "/campaigns";
  const listed = created ? createdList(body, dialect.create_campaigns_member) : body;
  const kept = op === "/campaigns" ? eachOf(listed, "campaigns", campaign) : campaign(listed);
  return { body: kept, ...(embedded ? { embedded, missing } : {}) };
}

/**
 * A place of a contract-named answer in the names the DSP answered (`/insertion_orders/0/po_number`),
 * with the key that placed it: a refusal names what the DSP sent, never a member it never had.
 */
export function dialectPlace(dialect: Dialect, method: HttpMethod, template: string, at: string): string {
  const renames = renamesOf(dialect, method, template);
  const keys: string[] = [];
  const place = at
    .split("/")
    .map((part) => {
      const rename = renames.find(([canonical, named]) => part === canonical && named !== canonical);
      if (rename === undefined) return part;
      keys.push(rename[2]);
      return rename[1];
    })
    .join("/");
  return keys.length === 0 ? at : `${place} (connection.dialect: ${keys.join(", ")})`;
}

/** The key placing the member `at` ends with (renamed or not): what adapts a DSP naming it otherwise. */
export function movedMemberKey(
  dialect: Dialect,
  method: HttpMethod,
  template: string,
  at: string,
): string | undefined {
  const last = at.split("/").at(-1);
  return renamesOf(dialect, method, template).find(([canonical]) => canonical === last)?.[2];
}

/** The members a dialect moves in one operation's answer: the contract's name, the dialect's, the key. */
function renamesOf(
  dialect: Dialect,
  method: HttpMethod,
  template: string,
): [canonical: string, named: string, key: string][] {
  const op = template.slice(DSP_BASE_PATH.length);
  if (op === "/insertion_orders" || op === "/insertion_orders/{id}") {
    return [["contract_number", dialect.contract_number, "contract_number"]];
  }
  if (op === "/campaigns/{campaign_id}/targetings" && method === "GET") {
    return [["targetings", dialect.targetings.member, "targetings.member"]];
  }
  if (op !== "/campaigns" && op !== "/campaigns/{id}") return [];
  return [
    ["progress", dialect.progress.member, "progress.member"],
    ["impressions_delivered", dialect.progress.impressions, "progress.impressions"],
    ["spend", dialect.progress.spend, "progress.spend"],
    ...(method === "POST" && op === "/campaigns"
      ? [
          ["campaigns", dialect.create_campaigns_member, "create_campaigns_member"] as [
            string,
            string,
            string,
          ],
        ]
      : []),
  ];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The member a dialect names, own only: every read by a dialect's name goes through here, so an
 * inherited name (`toString`; src/model/dialect.ts refuses `__proto__`) is missing, never a function.
 */
export function ownMember(value: unknown, name: string): unknown {
  return isObject(value) && Object.hasOwn(value, name) ? value[name] : undefined;
}

/** `value` with `from` moved to `to`; the same object when they are one member. */
function move(value: unknown, from: string, to: string): unknown {
  if (from === to || !isObject(value)) return value;
  const { [from]: _moved, [to]: _dropped, ...rest } = value;
  const moved = ownMember(value, from);
  return moved === undefined ? rest : { ...rest, [to]: moved };
}

/**
 * G3: a create's answer, its campaigns under `campaigns`: a DSP may answer under the dialect's
 * member or under `campaigns` (docs/connecting.md, Dialect); the dialect's is read first.
 */
function createdList(body: Record<string, unknown>, member: string): unknown {
  if (member === "campaigns" || Object.hasOwn(body, member) || !Object.hasOwn(body, "campaigns")) {
    return move(body, member, "campaigns");
  }
  return body;
}

/** `value` with each `from` moved to its `to`, every one read from `value` as it came. */
function moveAll(value: Record<string, unknown>, moves: readonly [from: string, to: string][]): unknown {
  const out: Record<string, unknown> = { ...value };
  for (const [from, to] of moves) if (from !== to) delete out[to];
  for (const [from, to] of moves) {
    if (from === to) continue;
    if (!moves.some(([, other]) => other === from)) delete out[from];
    const moved = ownMember(value, from);
    if (moved !== undefined) out[to] = moved;
  }
  return out;
}

function eachOf(envelope: unknown, member: string, each: (item: unknown) => unknown): unknown {
  if (!isObject(envelope) || !Array.isArray(envelope[member])) return envelope;
  return { ...envelope, [member]: (envelope[member] as unknown[]).map(each) };
}
