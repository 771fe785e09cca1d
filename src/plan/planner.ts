/**
 * `createPlan`: desired + live + options -> Plan, pure: the same inputs give the same bytes. It goes
 * through the stages once each, in order (ARCHITECTURE.md#the-plans-stages), then assembles.
 */
import { endpointsFor } from "../api/endpoints.js";
import type { DesiredState } from "../model/desired.js";
import { RateLimit } from "../model/limits.js";
import { buildChanges } from "./changes/build.js";
import { judge } from "./findings/pass.js";
import { LiveIndex } from "./live-index.js";
import { pauseSummary } from "./requests/pauses.js";
import { scheduleRequests } from "./requests/schedule.js";
import { fingerprints } from "./saved/fingerprint.js";
import { planSummary } from "./summary.js";
import { type LiveState, PLAN_FORMAT_VERSION, type Plan, type PlanOptions } from "./types.js";

export function createPlan(desired: DesiredState, live: LiveState, options: PlanOptions): Plan {
  const index = LiveIndex.of(live);
  const built = buildChanges({
    desired,
    live,
    index,
    targets: options.targets,
    changed: options.changed,
    recordedPauses: options.recorded,
    recordIssues: options.recordIssues,
  });
  const { maxPauseMs, rateLimits } = options;
  const interval = rateLimits.write.windowMs / rateLimits.write.limit;
  const schedule = scheduleRequests(built, {
    endpoints: endpointsFor(desired.connection.dialect),
    ...(maxPauseMs === undefined ? {} : { maxDarkRequests: Math.floor(maxPauseMs / interval) }),
  });
  const pauses = pauseSummary(schedule, built.changes, options);
  const allowed = [...new Set(options.allowed ?? [])].sort();
  const { findings, requests, money } = judge({ desired, live, built, schedule, options, allowed });
  const { thresholds } = options;
  return {
    format_version: PLAN_FORMAT_VERSION,
    tool_version: options.toolVersion,
    created_at: options.now,
    // One of several accounts (connection.account): `apply --plan` refuses another account's plan.
    ...(desired.connection.account ? { account: desired.connection.account.name } : {}),
    connection: {
      api_origin: options.connection.api_origin,
      environment: options.connection.environment,
      rate_limits: RateLimit.formatList(rateLimits),
      ...(options.connection.user !== undefined ? { user: options.connection.user } : {}),
    },
    config_files: desired.files.map((f) => ({ path: f.path, sha256: f.sha256 })),
    targets: [...(options.targets ?? [])],
    ...(maxPauseMs !== undefined ? { max_pause_ms: maxPauseMs } : {}),
    ...(allowed.length > 0 ? { allowed } : {}),
    ...(thresholds && Object.keys(thresholds).length > 0 ? { thresholds } : {}),
    ...(options.changed ? { scope: options.changed } : {}),
    fingerprints: fingerprints(live, index, built.normalizedLiveTargetings),
    changes: built.changes,
    requests,
    findings,
    summary: planSummary({
      desired,
      options,
      readRequests: live.readRequests,
      changes: built.changes,
      requests,
      money,
      pauses,
    }),
  };
}
