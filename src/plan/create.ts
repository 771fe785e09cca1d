/**
 * `createPlan`: desired + live + options -> Plan. Pure and deterministic: the same inputs
 * give the same plan, byte for byte (change ids in plan order, findings in a fixed order).
 * A plan with an error finding carries no requests: there is nothing safe to apply.
 */

import type { DesiredState } from "../model/desired.js";
import { RateLimit } from "../model/limits.js";
import { Time } from "../model/time.js";
import { analyze, DEFAULT_THRESHOLDS } from "./analyze.js";
import { buildChanges } from "./build.js";
import { finding, hasErrors } from "./findings.js";
import { fingerprints } from "./fingerprint.js";
import type { Choice } from "./pause-groups.js";
import { scheduleRequests } from "./schedule.js";
import { simulate } from "./simulate.js";
import { summarize } from "./summary.js";
import {
  type Finding,
  type LiveState,
  type PauseSummary,
  PLAN_FORMAT_VERSION,
  type Plan,
  type PlannedRequest,
  type PlanOptions,
} from "./types.js";

/** The dark time the chosen layout costs, in ms at the write window (I5). */
function pauseSummary(
  choice: Choice,
  intervalMs: number,
  maxPauseMs: number | undefined,
): PauseSummary | undefined {
  const dark = choice.layout.darkRequests;
  if (dark.length === 0) return undefined;
  return {
    campaigns: dark.length,
    mean_dark_ms: Math.round((choice.layout.totalDark / dark.length) * intervalMs),
    max_dark_ms: choice.layout.maxDark * intervalMs,
    extra_writes: choice.layout.writes - choice.minimumWrites,
    ...(maxPauseMs !== undefined ? { max_pause_ms: maxPauseMs } : {}),
  };
}

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

function orderFindings(findings: Finding[]): Finding[] {
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => SEVERITY_ORDER[a.f.severity] - SEVERITY_ORDER[b.f.severity] || a.i - b.i)
    .map(({ f }) => f);
}

export function createPlan(desired: DesiredState, live: LiveState, options: PlanOptions): Plan {
  const built = buildChanges(desired, live, options.targets, options.recorded);
  const findings: Finding[] = [...built.findings];
  let requests: PlannedRequest[] = [];
  let pauses: PauseSummary | undefined;
  if (!hasErrors(findings)) {
    const interval = options.rateLimits.write.windowMs / options.rateLimits.write.limit;
    const maxDarkRequests =
      options.maxPauseMs === undefined ? undefined : Math.floor(options.maxPauseMs / interval);
    const schedule = scheduleRequests(built, maxDarkRequests === undefined ? {} : { maxDarkRequests });
    requests = schedule.requests;
    pauses = pauseSummary(schedule.pauses, interval, options.maxPauseMs);
    if (!schedule.pauses.boundMet) {
      findings.push(
        finding(
          "DOOH204",
          "error",
          `--max-pause ${options.maxPauseMs! / 1000} s cannot be met: the shortest layout still pauses a campaign for about ${Time.formatDuration(schedule.pauses.layout.maxDark * interval)} (its pause, its targeting PUT and its reactivation at ${RateLimit.formatWindow(options.rateLimits.write)}); raise --max-pause`,
        ),
      );
    }
    findings.push(...simulate(live, requests));
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
      ...(options.connection.user !== undefined ? { user: options.connection.user } : {}),
    },
    config_files: desired.files.map((f) => ({ path: f.path, sha256: f.sha256 })),
    targets: [...(options.targets ?? [])],
    ...(options.maxPauseMs !== undefined ? { max_pause_ms: options.maxPauseMs } : {}),
    fingerprints: fingerprints(live, built.normalizedLiveTargetings),
    changes: built.changes,
    requests,
    findings: orderFindings(findings),
    summary: {
      ...summarize({
        changes: built.changes,
        requests,
        readRequests: live.readRequests,
        rateLimits: options.rateLimits,
        insertionOrderOrder: desired.insertionOrders.map((io) => io.id),
      }),
      ...(pauses && requests.length > 0 ? { pauses } : {}),
    },
  };
}

/** True when applying the plan would write something. */
export function hasChanges(plan: Plan): boolean {
  return plan.changes.length > 0;
}
