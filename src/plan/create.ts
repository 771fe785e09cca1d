/**
 * `createPlan`: desired + live + options -> Plan. Pure and deterministic: the same inputs
 * give the same plan, byte for byte (change ids in plan order, findings in a fixed order).
 * A plan with an error finding carries no requests: there is nothing safe to apply.
 */

import type { DesiredState } from "../model/desired.js";
import { RateLimit } from "../model/limits.js";
import { analyze, DEFAULT_THRESHOLDS } from "./analyze.js";
import { buildChanges } from "./build.js";
import { hasErrors } from "./findings.js";
import { fingerprints } from "./fingerprint.js";
import { scheduleRequests } from "./schedule.js";
import { simulate } from "./simulate.js";
import { summarize } from "./summary.js";
import {
  type Finding,
  type LiveState,
  PLAN_FORMAT_VERSION,
  type Plan,
  type PlannedRequest,
  type PlanOptions,
} from "./types.js";

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

function orderFindings(findings: Finding[]): Finding[] {
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => SEVERITY_ORDER[a.f.severity] - SEVERITY_ORDER[b.f.severity] || a.i - b.i)
    .map(({ f }) => f);
}

export function createPlan(desired: DesiredState, live: LiveState, options: PlanOptions): Plan {
  const built = buildChanges(desired, live, options.targets);
  const findings: Finding[] = [...built.findings];
  let requests: PlannedRequest[] = [];
  if (!hasErrors(findings)) {
    requests = scheduleRequests(built);
    findings.push(...simulate(live, requests, desired));
    if (hasErrors(findings)) requests = [];
  }
  findings.push(
    ...analyze({
      changes: built.changes,
      requests,
      liveCampaigns: built.liveCampaigns,
      liveCreatives: built.liveCreatives,
      finalActive: new Map(built.campaigns.map((w) => [w.key, w.finalActive])),
      now: options.now,
      thresholds: { ...DEFAULT_THRESHOLDS, ...options.thresholds },
      rateLimits: options.rateLimits,
    }),
  );
  return {
    format_version: PLAN_FORMAT_VERSION,
    tool_version: options.toolVersion,
    created_at: options.now,
    connection: {
      api_origin: options.connection.api_origin,
      environment: options.connection.environment,
      rate_limits: RateLimit.formatList(options.rateLimits),
    },
    config_files: desired.files.map((f) => ({ path: f.path, sha256: f.sha256 })),
    targets: [...(options.targets ?? [])],
    fingerprints: fingerprints(live, built.normalizedLiveTargetings),
    changes: built.changes,
    requests,
    findings: orderFindings(findings),
    summary: summarize({
      changes: built.changes,
      requests,
      readRequests: live.readRequests,
      rateLimits: options.rateLimits,
      insertionOrderOrder: desired.insertionOrders.map((io) => io.id),
    }),
  };
}

/** True when applying the plan would write something. */
export function hasChanges(plan: Plan): boolean {
  return plan.changes.length > 0;
}
