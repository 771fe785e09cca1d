/**
 * The desired state (ARCHITECTURE.md#configuration): an absent field is unmanaged, neither compared
 * nor changed; every object and field remembers its `file:line`.
 */
import type { Dialect } from "./dialect.js";
import type { RateLimits } from "./limits.js";
import type { Money } from "./money.js";
import type {
  CAMPAIGN_FIELDS,
  CREATIVE_FIELDS,
  DeclaredOf,
  INSERTION_ORDER_FIELDS,
} from "./resource-fields.js";
import type { TargetingOptionSet } from "./targeting.js";
import type { Environment } from "./wire.js";

/** A place in the user's config. */
export interface SourceRef {
  file: string;
  line: number;
  column: number;
  /** The path in the document, like `insertion_orders[0].campaigns[2].cpm`. */
  path: string;
}

/**
 * One of several accounts in a repository (`connection.account`, docs/safety.md): its name and
 * the NAMES of the environment variables holding its origin and credentials, never the values.
 */
export interface AccountSettings {
  name: string;
  apiOriginFrom: string;
  emailFrom: string;
  passwordFrom: string;
}

export interface ConnectionSettings {
  /** Absent: the single account of DOOHCTL_API_ORIGIN, DOOHCTL_EMAIL and DOOHCTL_PASSWORD. */
  account?: AccountSettings;
  apiOrigin?: string;
  environment?: Environment;
  rateLimits?: RateLimits;
  /** `connection.dialect` (src/model/dialect.ts): absent, every gap decision as written. */
  dialect?: Dialect;
}

export type UnmanagedCampaignsPolicy = "ignore" | "deactivate";

/** Managed insertion order fields (resource-fields.ts); an absent key is unmanaged. Times are canonical UTC. */
export type InsertionOrderFields = DeclaredOf<typeof INSERTION_ORDER_FIELDS>;

export type PolicyAction = "deny" | "warn";

/** One guardrail rule as declared: its action, its limit(s) and where it was written. */
export interface PolicyRule {
  action: PolicyAction;
  /** `max_cpm`, `max_added_spend`: at most one per currency. */
  limits?: Money[];
  /** The percent rules; absent: the DOOH401 threshold flag (or its default). */
  limit?: number;
  source: SourceRef;
}

/** Guardrail policies (`policy:`); an absent rule is not checked. */
export interface PolicyRules {
  max_cpm?: PolicyRule;
  budget_increase_percent?: PolicyRule;
  cpm_increase_percent?: PolicyRule;
  /** Top level only: it is per apply. */
  max_added_spend?: PolicyRule;
  no_deactivation_in_flight?: PolicyRule;
  /** DOOH906: an insertion order's campaigns may not be able to spend more than its budget_money. */
  commitments_within_budget?: PolicyRule;
}

/** Every guardrail rule a `policy:` may declare, in the order they are read and compared. */
export const POLICY_RULE_NAMES = [
  "max_cpm",
  "budget_increase_percent",
  "cpm_increase_percent",
  "max_added_spend",
  "no_deactivation_in_flight",
  "commitments_within_budget",
] as const satisfies readonly (keyof PolicyRules)[];

export interface DesiredInsertionOrder {
  id: string;
  fields: InsertionOrderFields;
  unmanagedCampaigns: UnmanagedCampaignsPolicy;
  /** Rules that replace the top-level ones of the same name for this insertion order. */
  policy?: PolicyRules;
  campaigns: DesiredCampaign[];
  source: SourceRef;
  /** Where the `id` key itself is written: a duplicate declaration is reported there. */
  idSource?: SourceRef;
  /** Where each declared field was written, by field name. */
  fieldSources: Partial<Record<keyof InsertionOrderFields, SourceRef>>;
}

/** Managed campaign fields (resource-fields.ts); `name` is identity, not a field (G2: not updatable). */
export type CampaignFields = DeclaredOf<typeof CAMPAIGN_FIELDS>;

export interface DesiredCampaign {
  name: string;
  /** Pins identity to a live campaign when given. */
  id?: string;
  fields: CampaignFields;
  /** Normalized (Targeting.normalizeList); `undefined` leaves live targetings alone. */
  targetings?: TargetingOptionSet[];
  /** Exactly the creatives to associate, sorted; `undefined` leaves associations alone. */
  creatives?: string[];
  source: SourceRef;
  fieldSources: Partial<Record<keyof CampaignFields | "targetings" | "creatives" | "name" | "id", SourceRef>>;
}

export type CreativeFields = DeclaredOf<typeof CREATIVE_FIELDS>;

export interface DesiredCreative {
  id: string;
  fields: CreativeFields;
  source: SourceRef;
  /** Where the `id` key itself is written: a duplicate declaration is reported there. */
  idSource?: SourceRef;
  fieldSources: Partial<Record<keyof CreativeFields, SourceRef>>;
}

export interface ConfigFileDigest {
  path: string;
  sha256: string;
}

export interface DesiredState {
  connection: ConnectionSettings;
  /** Top-level guardrail policies; absent when no file declares `policy`. */
  policy?: PolicyRules;
  insertionOrders: DesiredInsertionOrder[];
  creatives: DesiredCreative[];
  files: ConfigFileDigest[];
}
