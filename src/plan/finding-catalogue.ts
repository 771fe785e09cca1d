/**
 * The finding codes, each with its severity, summary and emitting module: stable (CI matches on
 * them, docs/plan.md documents each). A leaf every stage and `--allow` may import
 * (ARCHITECTURE.md#the-plans-stages). An error finding leaves a plan nothing to apply.
 */
import type { SourceRef } from "../model/desired.js";
import type { Finding, Severity } from "./types.js";

interface CatalogueEntry {
  severity: Severity;
  summary: string;
  /** The one module that calls `finding` with the code (test/plan/finding-modules.test.ts scans). */
  module: string;
  /** What `--allow CODE` lowers to a warning: a policy's denial, or an error sometimes meant. */
  allowable?: "policy" | "error";
}

/** Each constructor takes the module's path under src/plan. */
function error(module: string, summary: string): CatalogueEntry {
  return { severity: "error", summary, module: `src/plan/${module}` };
}

function warning(module: string, summary: string): CatalogueEntry {
  return { severity: "warning", summary, module: `src/plan/${module}` };
}

/** A guardrail policy code, at its `deny` severity: a `warn` rule or `--allow` lowers its breach. */
function policy(module: string, summary: string): CatalogueEntry {
  return { ...error(module, summary), allowable: "policy" };
}

/** Every code doohctl emits; a policy code (DOOH9xx) at its `deny` severity (policy.ts lowers it). */
export const FINDING_CATALOGUE = {
  DOOH001: error(
    "changes/build.ts",
    "insertion order does not exist (doohctl cannot create one; see docs/assumptions.md#g1)",
  ),
  DOOH002: error("changes/identity.ts", "two live campaigns share the name: pin one with id"),
  DOOH003: error("changes/identity.ts", "pinned campaign id does not exist"),
  DOOH004: error("changes/identity.ts", "pinned campaign belongs to another insertion order"),
  DOOH005: error(
    "changes/identity.ts",
    "pinned campaign has another name (names cannot change; see docs/assumptions.md#g2)",
  ),
  DOOH006: error(
    "changes/campaign-creation.ts",
    "new campaign lacks a field creation requires (see docs/assumptions.md#g3)",
  ),
  DOOH007: error("changes/creatives.ts", "creative does not exist"),
  DOOH008: error(
    "changes/creatives.ts",
    "archived creative cannot gain campaigns (see docs/assumptions.md#g6)",
  ),
  DOOH009: error("changes/scope.ts", "--target matches nothing in the config"),
  DOOH010: error("changes/creatives.ts", "creative category does not exist (see docs/assumptions.md#g6)"),
  DOOH011: warning("changes/removals.ts", "campaign removed from the config stays live (--changed-since)"),
  DOOH012: warning(
    "changes/removals.ts",
    "campaign renamed: the API cannot rename, a new one is created (G2)",
  ),
  DOOH013: warning(
    "changes/removals.ts",
    "campaign to create is named like a live one but for Unicode form, case or spaces",
  ),
  DOOH014: error(
    "changes/campaign-update.ts",
    "live targetings hold a member doohctl does not know: replacing them would remove it (see docs/assumptions.md#g14)",
  ),
  DOOH015: warning(
    "changes/removals.ts",
    "campaign added since --changed-since REF takes over a live campaign of the same name: pin its id if meant, or rename",
  ),
  DOOH101: warning("findings/analyze.ts", "deactivates a live campaign"),
  DOOH102: warning(
    "findings/dark-paths.ts",
    "stops delivery of a campaign in flight without deactivating it: no creative left that can serve, or a budget at what it has delivered",
  ),
  DOOH201: warning("findings/analyze.ts", "pauses a campaign for a targeting change"),
  DOOH202: warning(
    "changes/recovered.ts",
    "reactivates a campaign an earlier apply paused and did not reactivate",
  ),
  DOOH203: warning(
    "changes/recovered.ts",
    "a campaign is paused by an apply still running (its lease is fresh)",
  ),
  DOOH204: error("findings/pass.ts", "--max-pause cannot be met"),
  DOOH205: warning(
    "changes/recovered.ts",
    "recovery record entry not obeyed: another account, or outside the declared insertion orders",
  ),
  DOOH206: error(
    "changes/recovered.ts",
    "recovery record cannot be read: campaigns it lists may still be paused",
  ),
  DOOH207: warning(
    "changes/campaign-update.ts",
    "pause for a targeting change protected only by the recovery record: declare active",
  ),
  DOOH208: warning(
    "changes/recovered.ts",
    "reactivates an inactive campaign in flight that the config declares active, outside the scope",
  ),
  DOOH301: warning("findings/analyze.ts", "creates or edits a campaign whose flight has ended"),
  DOOH302: warning(
    "findings/delivery.ts",
    "ends the flight of a campaign in flight: delivery stops at apply",
  ),
  DOOH303: warning(
    "findings/delivery.ts",
    "changes the cpm of a campaign mid-flight: what it delivered was bought at the price it cost (spend x 1000 / delivered)",
  ),
  DOOH304: warning(
    "findings/budget-cut.ts",
    "cuts the budget of a campaign in flight to less than --min-budget-days of delivery at its pace",
  ),
  DOOH401: warning("findings/analyze.ts", "budget or cpm increase above the threshold"),
  DOOH501: warning("findings/analyze.ts", "creative not ready to serve on an active campaign"),
  DOOH601: error(
    "changes/creatives.ts",
    "creative advertiser differs from the campaign's (see docs/assumptions.md#g6)",
  ),
  DOOH701: error(
    "findings/simulate.ts",
    "desired state breaks a rule the DSP enforces (see docs/assumptions.md#g8)",
  ),
  DOOH702: error("findings/simulate.ts", "no safe order of requests exists (I1, I3)"),
  DOOH801: error(
    "findings/delivery.ts",
    "campaign budget_impressions below the impressions it has delivered",
  ),
  DOOH802: error("findings/delivery.ts", "insertion order budget_money below what its campaigns have spent"),
  DOOH803: warning(
    "findings/commitments.ts",
    "the campaigns of an insertion order can spend more than its budget_money, or in a currency it cannot be compared with",
  ),
  DOOH804: {
    ...error(
      "findings/delivery.ts",
      "changes the currency of a budget_money or cpm after money was spent in the old one (never converted; --allow DOOH804)",
    ),
    allowable: "error",
  },
  DOOH901: policy("findings/policy.ts", "policy max_cpm: cpm above the highest cpm for its currency"),
  DOOH902: policy("findings/policy.ts", "policy budget_increase_percent: budget increase above the limit"),
  DOOH903: policy("findings/policy.ts", "policy cpm_increase_percent: cpm increase above the limit"),
  DOOH904: policy(
    "findings/policy.ts",
    "policy max_added_spend: the plan adds more maximum spend than the limit",
  ),
  DOOH905: policy(
    "findings/policy.ts",
    "policy no_deactivation_in_flight: stops delivery of a campaign in flight (deactivation, end_time at or before now, no creative that can serve, budget at or below delivered)",
  ),
  DOOH906: policy(
    "findings/commitments.ts",
    "policy commitments_within_budget: the campaigns of an insertion order can spend more than its budget_money",
  ),
  DOOH907: warning(
    "findings/pass.ts",
    "the change loosens the guardrail policy against the config at --changed-since REF",
  ),
} satisfies Record<string, CatalogueEntry>;

export type FindingCode = keyof typeof FINDING_CATALOGUE;

function allowableAs(kind: CatalogueEntry["allowable"]): FindingCode[] {
  return (Object.entries(FINDING_CATALOGUE) as [FindingCode, CatalogueEntry][])
    .filter(([, entry]) => entry.allowable === kind)
    .map(([code]) => code);
}

/** The guardrail policy codes (DOOH901..DOOH906). */
export const POLICY_CODES: readonly FindingCode[] = allowableAs("policy");

/** What `--allow` accepts: the policy codes, then the catalogue's other allowable errors (DOOH804). */
export const ALLOWED_CODES: readonly FindingCode[] = [...POLICY_CODES, ...allowableAs("error")];

export function isAllowableCode(code: string): boolean {
  return (ALLOWED_CODES as readonly string[]).includes(code);
}

/** A finding of `code`, with the severity the catalogue gives it. */
export function finding(
  code: FindingCode,
  message: string,
  extra: { address?: string; change_ids?: string[]; source?: SourceRef | undefined } = {},
): Finding {
  const result: Finding = { code, severity: FINDING_CATALOGUE[code].severity, message };
  if (extra.address !== undefined) result.address = extra.address;
  if (extra.change_ids !== undefined && extra.change_ids.length > 0) result.change_ids = extra.change_ids;
  if (extra.source !== undefined) result.source = extra.source;
  return result;
}
