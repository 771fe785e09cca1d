/**
 * The catalogue of finding codes (Atlas `sqlcheck` style): each code's severity and summary
 * in one table. Codes are stable: scripts and CI policies match on them, and docs/plan.md
 * documents each. Errors mean no plan can be applied (and none is emitted).
 */
import type { SourceRef } from "../model/desired.js";
import type { Finding, Severity } from "./types.js";

interface CatalogueEntry {
  severity: Severity;
  summary: string;
}

/**
 * Every code doohctl emits. A policy code (DOOH9xx) is listed with its `deny` severity; a
 * `warn` rule or `--allow` lowers its breach to a warning (policy.ts).
 */
export const FINDING_CATALOGUE = {
  DOOH001: {
    severity: "error",
    summary: "insertion order does not exist (doohctl cannot create one; see docs/assumptions.md#g1)",
  },
  DOOH002: { severity: "error", summary: "two live campaigns share the name: pin one with id" },
  DOOH003: { severity: "error", summary: "pinned campaign id does not exist" },
  DOOH004: { severity: "error", summary: "pinned campaign belongs to another insertion order" },
  DOOH005: {
    severity: "error",
    summary: "pinned campaign has another name (names cannot change; see docs/assumptions.md#g2)",
  },
  DOOH006: {
    severity: "error",
    summary: "new campaign lacks a field creation requires (see docs/assumptions.md#g3)",
  },
  DOOH007: { severity: "error", summary: "creative does not exist" },
  DOOH008: {
    severity: "error",
    summary: "archived creative cannot gain campaigns (see docs/assumptions.md#g6)",
  },
  DOOH009: { severity: "error", summary: "--target matches nothing in the config" },
  DOOH010: { severity: "error", summary: "creative category does not exist (see docs/assumptions.md#g6)" },
  DOOH011: { severity: "warning", summary: "campaign removed from the config stays live (--changed-since)" },
  DOOH012: {
    severity: "warning",
    summary: "campaign renamed: the API cannot rename, a new one is created (G2)",
  },
  DOOH013: {
    severity: "warning",
    summary: "campaign to create is named like a live one but for Unicode form, case or spaces",
  },
  DOOH101: { severity: "warning", summary: "deactivates a live campaign" },
  DOOH201: { severity: "warning", summary: "pauses a campaign for a targeting change" },
  DOOH202: {
    severity: "warning",
    summary: "reactivates a campaign an earlier apply paused and did not reactivate",
  },
  DOOH203: { severity: "warning", summary: "a campaign is paused by an apply still running on this machine" },
  DOOH204: { severity: "error", summary: "--max-pause cannot be met" },
  DOOH301: { severity: "warning", summary: "edits a campaign whose flight has ended" },
  DOOH302: {
    severity: "warning",
    summary: "ends the flight of a campaign in flight: delivery stops at apply",
  },
  DOOH303: {
    severity: "warning",
    summary: "changes the cpm of a campaign mid-flight: what it delivered was bought at the old price",
  },
  DOOH401: { severity: "warning", summary: "budget or cpm increase above the threshold" },
  DOOH501: { severity: "warning", summary: "creative not ready to serve on an active campaign" },
  DOOH601: {
    severity: "error",
    summary: "creative advertiser differs from the campaign's (see docs/assumptions.md#g6)",
  },
  DOOH701: {
    severity: "error",
    summary: "desired state breaks a rule the DSP enforces (see docs/assumptions.md#g8)",
  },
  DOOH702: { severity: "error", summary: "no safe order of requests exists (I1, I3)" },
  DOOH801: {
    severity: "error",
    summary: "campaign budget_impressions below the impressions it has delivered",
  },
  DOOH802: {
    severity: "error",
    summary: "insertion order budget_money below what its campaigns have spent",
  },
  DOOH901: { severity: "error", summary: "policy max_cpm: cpm above the highest cpm for its currency" },
  DOOH902: {
    severity: "error",
    summary: "policy budget_increase_percent: budget increase above the limit",
  },
  DOOH903: { severity: "error", summary: "policy cpm_increase_percent: cpm increase above the limit" },
  DOOH904: {
    severity: "error",
    summary: "policy max_added_spend: the plan adds more maximum spend than the limit",
  },
  DOOH905: {
    severity: "error",
    summary: "policy no_deactivation_in_flight: deactivates a campaign in flight",
  },
} as const satisfies Record<string, CatalogueEntry>;

export type FindingCode = keyof typeof FINDING_CATALOGUE;

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

export function hasErrors(findings: readonly Finding[]): boolean {
  return findings.some((f) => f.severity === "error");
}

/**
 * A named check over a plan's changes (Atlas `sqlcheck`'s analyzers): the codes it may emit
 * and how it runs. It reads its input and never changes it.
 */
export interface Analyzer<Input> {
  name: string;
  codes: readonly FindingCode[];
  run: (input: Input) => Finding[];
}

/** The findings of each analyzer in turn, in list order. */
export function runAnalyzers<Input>(analyzers: readonly Analyzer<Input>[], input: Input): Finding[] {
  return analyzers.flatMap((analyzer) => analyzer.run(input));
}
