/**
 * The catalogue of analyzer codes. Codes are stable: scripts and CI policies match on them,
 * and docs/plan.md documents each. Errors mean no plan can be applied (and none is emitted).
 */
import type { SourceRef } from "../model/desired.js";
import type { Finding, Severity } from "./types.js";

export const FINDING_CODES = {
  DOOH001: "insertion order does not exist (doohctl cannot create one; see docs/assumptions.md#g1)",
  DOOH002: "two live campaigns share the name: pin one with id",
  DOOH003: "pinned campaign id does not exist",
  DOOH004: "pinned campaign belongs to another insertion order",
  DOOH005: "pinned campaign has another name (names cannot change; see docs/assumptions.md#g2)",
  DOOH006: "new campaign lacks a field creation requires (see docs/assumptions.md#g3)",
  DOOH007: "creative does not exist",
  DOOH008: "archived creative cannot gain campaigns (see docs/assumptions.md#g6)",
  DOOH009: "--target matches nothing in the config",
  DOOH010: "creative category does not exist (see docs/assumptions.md#g6)",
  DOOH011: "campaign removed from the config stays live (--changed-since)",
  DOOH012: "campaign renamed: the API cannot rename, a new one is created (G2)",
  DOOH013: "campaign to create is named like a live one but for Unicode form, case or spaces",
  DOOH101: "deactivates a live campaign",
  DOOH201: "pauses a campaign for a targeting change",
  DOOH202: "reactivates a campaign an earlier apply paused and did not reactivate",
  DOOH203: "a campaign is paused by an apply still running on this machine",
  DOOH204: "--max-pause cannot be met",
  DOOH301: "edits a campaign whose flight has ended",
  DOOH302: "ends the flight of a campaign in flight: delivery stops at apply",
  DOOH303: "changes the cpm of a campaign mid-flight: what it delivered was bought at the old price",
  DOOH401: "budget or cpm increase above the threshold",
  DOOH501: "creative not ready to serve on an active campaign",
  DOOH601: "creative advertiser differs from the campaign's (see docs/assumptions.md#g6)",
  DOOH701: "desired state breaks a rule the DSP enforces (see docs/assumptions.md#g8)",
  DOOH702: "no safe order of requests exists (I1, I3)",
  DOOH801: "campaign budget_impressions below the impressions it has delivered",
  DOOH802: "insertion order budget_money below what its campaigns have spent",
  DOOH901: "policy max_cpm: cpm above the highest cpm for its currency",
  DOOH902: "policy budget_increase_percent: budget increase above the limit",
  DOOH903: "policy cpm_increase_percent: cpm increase above the limit",
  DOOH904: "policy max_added_spend: the plan adds more maximum spend than the limit",
  DOOH905: "policy no_deactivation_in_flight: deactivates a campaign in flight",
} as const;

export type FindingCode = keyof typeof FINDING_CODES;

export function finding(
  code: FindingCode,
  severity: Severity,
  message: string,
  extra: { address?: string; change_ids?: string[]; source?: SourceRef | undefined } = {},
): Finding {
  const result: Finding = { code, severity, message };
  if (extra.address !== undefined) result.address = extra.address;
  if (extra.change_ids !== undefined && extra.change_ids.length > 0) result.change_ids = extra.change_ids;
  if (extra.source !== undefined) result.source = extra.source;
  return result;
}

export function hasErrors(findings: readonly Finding[]): boolean {
  return findings.some((f) => f.severity === "error");
}
