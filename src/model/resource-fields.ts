/**
 * The one description of each DSP resource's members (spec, G1, G2, G6): every member doohctl
 * reads, its kind and what doohctl does with it; every other list of members is taken from it,
 * and src/emulator/members.ts is checked against it (ARCHITECTURE.md#adding-a-field).
 */
import type { Money } from "./money.js";

/** A member's value by kind: a `url` is an http(s) URL (url.ts); `opaque` is stored as given (G2). */
interface KindValue {
  id: string;
  text: string;
  url: string;
  time: string;
  money: Money;
  integer: number;
  boolean: boolean;
  opaque: Record<string, unknown>;
  id_list: string[];
}

export type FieldKind = keyof KindValue;

/**
 * What holds of a member:
 * - `config`: declared in the config (managed: an absent key is neither compared nor changed);
 * - `required`: required to create (G3), so a config that would create without it is refused;
 * - `create`: sent on create, from the config; `update`: sent in a PATCH when it differs;
 * - `compare`: compared with the live value (the plan's field changes);
 * - `fingerprint`: part of the saved plan's fingerprint of the live object (stale.ts);
 * - `export`: written by `doohctl export`; `pull`: written back by `doohctl pull`;
 * - `api`: owned by the API (read-only, G1, G2, G6).
 */
export type FieldFlag =
  | "config"
  | "required"
  | "create"
  | "update"
  | "compare"
  | "fingerprint"
  | "export"
  | "pull"
  | "api";

export interface FieldSpec {
  /** Its name on the wire and in the config. */
  readonly name: string;
  readonly kind: FieldKind;
  /** `null` is a value (it clears the field). */
  readonly nullable?: boolean;
  readonly flags: readonly FieldFlag[];
  /** The config schema's words and example (docs/config.md), for a `config` member. */
  readonly docs?: { readonly text: string; readonly example?: unknown };
  /** The contract's words on reads and writes, and its named schema where the kind says less (`Pacing`). */
  readonly contract?: { readonly read?: string; readonly write?: string; readonly schema?: string };
}

/** What holds of a field a config manages: it is written back, and a live change makes a plan stale. */
const MANAGED = ["config", "update", "compare", "fingerprint", "export", "pull"] as const;
/** G3: what creating a campaign needs. */
const TO_CREATE = [...MANAGED, "required", "create"] as const;

/** G1: insertion orders are contracted outside the API; read and patched only. */
export const INSERTION_ORDER_FIELDS = [
  { name: "id", kind: "id", flags: ["export"] },
  { name: "advertiser_id", kind: "id", flags: ["api", "fingerprint"] },
  { name: "name", kind: "text", flags: ["api"], contract: { read: "Read-only (G1)." } },
  {
    name: "contract_number",
    kind: "text",
    nullable: true,
    flags: MANAGED,
    docs: { text: "The contract (purchase order) number; null clears it.", example: "PO-7781" },
    contract: { read: "The specification's contract number (G1)." },
  },
  {
    name: "start_time",
    kind: "time",
    flags: MANAGED,
    docs: {
      text: "Start of the flight window: an ISO 8601 date-time with `Z` or an offset. Must be before end_time; campaign flights must lie inside it.",
    },
  },
  {
    name: "end_time",
    kind: "time",
    flags: MANAGED,
    docs: { text: "End of the flight window (exclusive): an ISO 8601 date-time with `Z` or an offset." },
  },
  {
    name: "budget_impressions",
    kind: "integer",
    nullable: true,
    flags: MANAGED,
    docs: {
      text: "Impression budget; the declared campaigns' budgets must not add up to more. null clears it. A whole number up to 9007199254740991 (2^53 - 1): beyond it a number loses digits in JSON and budget sums are no longer exact.",
      example: 2000000,
    },
  },
  {
    name: "budget_money",
    kind: "money",
    nullable: true,
    flags: MANAGED,
    docs: {
      text: 'Money budget, like "25000 USD"; campaign cpm must be in the same currency. null clears it.',
    },
  },
] as const satisfies readonly FieldSpec[];

/** G2, G3. `name` is identity, not a field: the API cannot rename a campaign. */
export const CAMPAIGN_FIELDS = [
  {
    name: "name",
    kind: "text",
    flags: ["fingerprint", "export"],
    contract: { read: "Set at creation, not updatable (G2)." },
  },
  { name: "id", kind: "id", flags: ["export"] },
  { name: "insertion_order_id", kind: "id", flags: ["fingerprint"] },
  {
    name: "active",
    kind: "boolean",
    flags: MANAGED,
    docs: { text: "true lets the campaign serve; false stops delivery and keeps its configuration." },
  },
  { name: "in_flight", kind: "boolean", flags: ["api"], contract: { read: "Read-only (G2)." } },
  {
    name: "start_time",
    kind: "time",
    flags: TO_CREATE,
    docs: {
      text: "Start of the campaign's flight: an ISO 8601 date-time with `Z` or an offset, inside the insertion order's flight.",
    },
  },
  {
    name: "end_time",
    kind: "time",
    flags: TO_CREATE,
    docs: { text: "End of the campaign's flight (exclusive), inside the insertion order's flight." },
  },
  {
    name: "budget_impressions",
    kind: "integer",
    flags: TO_CREATE,
    docs: {
      text: "Impression budget of the campaign: a whole number up to 9007199254740991 (2^53 - 1); beyond it a number loses digits in JSON and budget sums are no longer exact.",
      example: 500000,
    },
  },
  {
    name: "cpm",
    kind: "money",
    flags: TO_CREATE,
    docs: {
      text: 'Cost per thousand impressions, like "12.50 USD"; in the insertion order\'s budget_money currency.',
    },
  },
  {
    name: "pacing",
    kind: "opaque",
    flags: [...MANAGED, "create"],
    docs: {
      text: "Pacing settings: an object passed to the API as written and compared deeply.",
      example: { strategy: "even" },
    },
    contract: { schema: "Pacing" },
  },
] as const satisfies readonly FieldSpec[];

/** Spec, Creative (DSP view): the members G6's filters and the reconciler read. */
export const CREATIVE_FIELDS = [
  { name: "id", kind: "id", flags: ["export"] },
  { name: "advertiser_id", kind: "id", flags: ["api", "fingerprint"] },
  { name: "name", kind: "text", flags: ["api"] },
  { name: "campaign_ids", kind: "id_list", flags: ["fingerprint"] },
  { name: "insertion_order_ids", kind: "id_list", flags: [] },
  {
    name: "category_ids",
    kind: "id_list",
    flags: MANAGED,
    docs: {
      text: "Exactly the creative categories of this creative, by id; [] removes all.",
      example: ["3"],
    },
  },
  { name: "archived", kind: "boolean", flags: ["api", "fingerprint"] },
  { name: "type", kind: "text", flags: ["api"], contract: { schema: "CreativeType" } },
  { name: "processing_status", kind: "text", flags: ["api"], contract: { schema: "ProcessingStatus" } },
  {
    name: "pixel_url",
    kind: "url",
    flags: MANAGED,
    docs: { text: "Tracking pixel URL: an absolute http or https URL." },
    contract: { write: "A URL (spec, Creative: pixel_url)." },
  },
] as const satisfies readonly FieldSpec[];

/** A resource's table, with the names it goes by in the config schema and the contract. */
export interface ResourceTable {
  readonly fields: readonly FieldSpec[];
  /** `$defs` entry of schemas/doohctl.schema.json. */
  readonly config: string;
  /** The contract's schemas: the read, the changes (`*Changes`, `*PatchItem`), the create. */
  readonly contract: { readonly read: string; readonly patch: readonly string[]; readonly create?: string };
}

export const RESOURCES = {
  insertionOrder: {
    fields: INSERTION_ORDER_FIELDS,
    config: "insertion_order",
    contract: { read: "InsertionOrder", patch: ["InsertionOrderChanges", "InsertionOrderPatchItem"] },
  },
  campaign: {
    fields: CAMPAIGN_FIELDS,
    config: "campaign",
    contract: { read: "Campaign", patch: ["CampaignChanges", "CampaignPatchItem"], create: "CampaignCreate" },
  },
  creative: {
    fields: CREATIVE_FIELDS,
    config: "creative",
    contract: { read: "Creative", patch: ["CreativeChanges", "CreativePatchItem"] },
  },
} as const satisfies Record<string, ResourceTable>;

/** The members of `fields` with `flag`, in table order. */
export function withFlag<T extends FieldSpec>(fields: readonly T[], flag: FieldFlag): T[] {
  return fields.filter((f) => (f.flags as readonly FieldFlag[]).includes(flag));
}

// Types taken from the tables: a member added there is a compile error wherever it is missing.

/** The value of one member: by its kind, and `null` when it is nullable. */
export type FieldValue<S extends FieldSpec> =
  | KindValue[S["kind"]]
  | (S extends { nullable: true } ? null : never);

/** The members of `T` having `F`. */
type WithFlag<T extends readonly FieldSpec[], F extends FieldFlag> = {
  [I in keyof T]: T[I] extends FieldSpec ? (F extends T[I]["flags"][number] ? T[I] : never) : never;
}[number];

/** Every member of the table, as the wire carries it. */
export type WireOf<T extends readonly FieldSpec[]> = { [S in T[number] as S["name"]]: FieldValue<S> };

/** The members a config declares, each optional (an absent key is unmanaged). */
export type DeclaredOf<T extends readonly FieldSpec[]> = {
  [S in WithFlag<T, "config"> as S["name"]]?: FieldValue<S>;
};

/** A PATCH body's changes (without `id`). */
export type ChangesOf<T extends readonly FieldSpec[]> = {
  [S in WithFlag<T, "update"> as S["name"]]?: FieldValue<S>;
};

/** What a create sends from the config: the required members, and the others when declared. */
export type CreatedOf<T extends readonly FieldSpec[]> = {
  [S in WithFlag<T, "required"> as S["name"]]: FieldValue<S>;
} & { [S in WithFlag<T, "create"> as S["name"]]?: FieldValue<S> };
