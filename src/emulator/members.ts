/**
 * The emulator's own table of the members of the resources it writes (spec, G1, G2, G3, G6): kind,
 * whether PATCH and create take it, what create requires, what a create or seed leaving it out
 * gets. The routes, the store, the seed's schema and loading read it. Not the client's table (the
 * oracle shares none of it, ARCHITECTURE.md); test/model/resource-fields.test.ts checks they agree.
 */
import type { Issues } from "./errors.js";
import {
  fieldPath,
  readBoolean,
  readCount,
  readMoney,
  readOpaqueObject,
  readString,
  readTime,
} from "./fields.js";

/** A member's value: `name` is 1 to 200 characters, `text` at most 100 (a contract number). */
export type MemberKind = "id" | "name" | "text" | "boolean" | "time" | "count" | "money" | "opaque";

export interface Member {
  readonly kind?: MemberKind;
  /** `null` is a value (it clears the member); a seed may leave it out. */
  readonly nullable?: true;
  /** PATCH takes it. */
  readonly patch?: true;
  /** Create takes it, and whether it must (G3). */
  readonly create?: "required" | "optional";
  /** What a create that leaves it out stores. */
  readonly absent?: unknown;
  /** A seed may leave it out: it is then this. */
  readonly seedAbsent?: unknown;
  /** Computed by the views, never stored: what the seed schema says of it. */
  readonly derived?: string;
}

export type Members = Readonly<Record<string, Member>>;

/** G1: no create; the API owns the advertiser and the name. */
export const INSERTION_ORDER_MEMBERS = {
  id: { kind: "id" },
  advertiser_id: { kind: "id" },
  name: { kind: "name" },
  contract_number: { kind: "text", nullable: true, patch: true },
  start_time: { kind: "time", patch: true },
  end_time: { kind: "time", patch: true },
  budget_impressions: { kind: "count", nullable: true, patch: true },
  budget_money: { kind: "money", nullable: true, patch: true },
} as const satisfies Members;

/** G2, G3; in the order the API answers them. */
export const CAMPAIGN_MEMBERS = {
  id: { kind: "id" },
  insertion_order_id: { kind: "id", create: "required" },
  name: { kind: "name", create: "required" },
  active: { kind: "boolean", patch: true, create: "optional", absent: false },
  in_flight: { kind: "boolean", derived: "Ignored: the emulator computes it from its clock (G2)." },
  start_time: { kind: "time", patch: true, create: "required" },
  end_time: { kind: "time", patch: true, create: "required" },
  budget_impressions: { kind: "count", patch: true, create: "required" },
  cpm: { kind: "money", patch: true, create: "required" },
  pacing: { kind: "opaque", patch: true, create: "optional", absent: {}, seedAbsent: {} },
  progress: { kind: "opaque", derived: "Ignored: progress is derived (G2)." },
} as const satisfies Members;

/** Spec, Creative (DSP view; G6): the writes' keys only; the creative routes read each value themselves. */
export const CREATIVE_MEMBERS = {
  name: { create: "required" },
  advertiser_id: { create: "required" },
  type: { create: "required" },
  asset: { create: "required" },
  duration_ms: { create: "optional" },
  requires_audio: { create: "optional" },
  category_ids: { patch: true, create: "optional" },
  pixel_url: { patch: true, create: "optional" },
  campaign_ids: { patch: true },
  insertion_order_ids: { patch: true },
  id: {},
  create_time: {},
  thumbnail_url: {},
  archived: {},
  processing_status: {},
  audits: {},
} as const satisfies Members;

/** The names of the members `test` holds of, in the table's order. */
export function memberNames(members: Members, test: (m: Member, name: string) => boolean): string[] {
  return Object.entries(members).flatMap(([name, m]) => (test(m, name) ? [name] : []));
}

/** The keys a write takes (`id` too for a PATCH item), and those it refuses as read-only: the others. */
export function writeKeys(members: Members, write: "patch" | "create") {
  const writable = memberNames(members, (m) => m[write] !== undefined);
  const readOnly = memberNames(members, (m, name) => !m[write] && (write === "create" || name !== "id"));
  return { writable: write === "patch" ? ["id", ...writable] : writable, readOnly };
}

type Reader = (issues: Issues, field: string, value: unknown) => unknown;

const READERS: Partial<Record<MemberKind, Reader>> = {
  name: (issues, field, value) => readString(issues, field, value, { min: 1, max: 200 }),
  text: (issues, field, value) => readString(issues, field, value, { max: 100 }),
  boolean: readBoolean,
  time: readTime,
  count: readCount,
  money: readMoney,
  opaque: readOpaqueObject,
};

/** The PATCH members present in `body`, each read by its kind; a bad one is recorded and left out. */
export function readPatch<T>(members: Members, issues: Issues, prefix: string, body: object) {
  const changes: Record<string, unknown> = {};
  for (const [name, m] of Object.entries(members)) {
    const value = (body as Record<string, unknown>)[name];
    if (!m.patch || value === undefined) continue;
    const read =
      value === null && m.nullable ? null : READERS[m.kind!]!(issues, fieldPath(prefix, name), value);
    if (read !== undefined) changes[name] = read;
  }
  return changes as Partial<T>;
}

/** A created record: the values given, and what create gives a member left out. */
export function created<T>(members: Members, given: Record<string, unknown>): T {
  const record: Record<string, unknown> = {};
  for (const [name, m] of Object.entries(members)) {
    if (m.derived !== undefined) continue;
    record[name] = given[name] ?? structuredClone(m.absent);
  }
  return record as T;
}

/** The seed's times and money, read as a write's are (UTC, G8's money): the schema cannot say it. */
export function checkSeedMembers(members: Members, issues: Issues, at: string, item: object): void {
  for (const [name, m] of Object.entries(members)) {
    const value = (item as Record<string, unknown>)[name];
    if ((m.kind === "time" || m.kind === "money") && !m.derived && value !== undefined && value !== null)
      READERS[m.kind]!(issues, `${at}.${name}`, value);
  }
}

/** A copy of a stored value to answer or keep: money and opaque objects are never shared. */
function copied(kind: MemberKind | undefined, value: unknown): unknown {
  if (kind === "money" && value !== null) return { ...(value as object) };
  return kind === "opaque" ? structuredClone(value) : value;
}

/**
 * A seed's item as stored: a member left out is what the seed may leave it as (null when
 * nullable), times canonical, money with its `nanos` (G12), objects copied; derived ones dropped.
 */
export function seeded<T>(members: Members, item: object, canonical: (time: string) => string): T {
  const record: Record<string, unknown> = {};
  for (const [name, m] of Object.entries(members)) {
    if (m.derived !== undefined) continue;
    const value = (item as Record<string, unknown>)[name] ?? m.seedAbsent ?? (m.nullable ? null : undefined);
    if (value === null || value === undefined) record[name] = value;
    else if (m.kind === "time") record[name] = canonical(value as string);
    else if (m.kind === "money")
      record[name] = { ...(value as object), nanos: (value as { nanos?: number }).nanos ?? 0 };
    else record[name] = copied(m.kind, value);
  }
  return record as T;
}

/** A record as the API answers it, in the table's order: each member copied, derived ones from `derived`. */
export function viewOf<T>(members: Members, record: object, derived: Record<string, unknown>): T {
  const view: Record<string, unknown> = {};
  for (const [name, m] of Object.entries(members)) {
    if (m.derived === undefined) view[name] = copied(m.kind, (record as Record<string, unknown>)[name]);
    else if (derived[name] !== undefined) view[name] = derived[name];
  }
  return view as T;
}
