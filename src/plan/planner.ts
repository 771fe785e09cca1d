/**
 * `createPlan`: desired + live + options -> Plan. Pure and deterministic: the same inputs
 * give the same plan, byte for byte (change ids in plan order, findings in a fixed order).
 * A plan with an error finding carries no requests: there is nothing safe to apply.
 */

import { endpointsFor } from "../api/endpoints.js";
import { append, largest } from "../model/append.js";
import type { DesiredState } from "../model/desired.js";
import { RateLimit } from "../model/limits.js";
import { Time } from "../model/time.js";
import { buildChanges } from "./changes/build.js";
import { recordFindings } from "./changes/recovered.js";
import { analyze, DEFAULT_THRESHOLDS } from "./findings/analyze.js";
import { overspentBudgets } from "./findings/delivery.js";
import { finding, hasErrors } from "./findings/findings.js";
import { policedIncrease, policyFindings } from "./findings/policy.js";
import { budgetMoneyChanges, campaignSpendChanges, spendSummary } from "./findings/spend.js";
import { savedThresholds } from "./findings/thresholds.js";
import { LiveIndex } from "./live-index.js";
import type { Choice } from "./requests/pause-groups.js";
import { pauseSpans } from "./requests/pauses.js";
import { scheduleRequests } from "./requests/schedule.js";
import { simulate } from "./requests/simulate.js";
import { planSummary } from "./requests/summary.js";
import { writeSendTimes } from "./requests/window.js";
import { fingerprints } from "./saved/fingerprint.js";
import {
  type ChangedScope,
  type Finding,
  type LiveState,
  type PauseSummary,
  PLAN_FORMAT_VERSION,
  type Plan,
  type PlannedRequest,
  type PlanOptions,
} from "./types.js";

/**
 * How long the paused campaigns stay dark, estimated as the ETA is: when each request can go
 * in the write window as it stands (window.ts). The layout itself was chosen (and --max-pause
 * held) at the window's steady pace, the bound that holds however busy the window is.
 */
function pauseSummary(input: {
  choice: Choice;
  requests: readonly PlannedRequest[];
  changes: Plan["changes"];
  options: PlanOptions;
}): PauseSummary | undefined {
  const spans = pauseSpans({ changes: input.changes, requests: input.requests });
  if (spans.length === 0) return undefined;
  const { rateLimits, writeWindowBusyMs, maxPauseMs } = input.options;
  const times = writeSendTimes(input.requests.length, rateLimits.write, writeWindowBusyMs);
  const dark = spans.map((s) =>
    s.resume_seq === undefined
      ? 0
      : Math.max(0, (times[s.resume_seq - 1] ?? 0) - (times[s.pause_seq - 1] ?? 0)),
  );
  return {
    campaigns: spans.length,
    mean_dark_ms: Math.round(dark.reduce((a, b) => a + b, 0) / dark.length),
    max_dark_ms: largest(dark),
    extra_writes: input.choice.layout.writes - input.choice.minimumWrites,
    ...(maxPauseMs !== undefined ? { max_pause_ms: maxPauseMs } : {}),
  };
}

/** Whether the policy was compared with a base, and what loosened; undefined without a policy. */
function policySummary(
  desired: DesiredState,
  changed: ChangedScope | undefined,
): { compared_with?: string; loosened: string[] } | undefined {
  const declared =
    desired.policy !== undefined || desired.insertionOrders.some((io) => io.policy !== undefined);
  if (!declared && !changed?.loosened_policy) return undefined;
  if (!changed) return { loosened: [] };
  return { compared_with: `${changed.since} (${changed.commit})`, loosened: changed.loosened_policy ?? [] };
}

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

function orderFindings(findings: Finding[]): Finding[] {
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => SEVERITY_ORDER[a.f.severity] - SEVERITY_ORDER[b.f.severity] || a.i - b.i)
    .map(({ f }) => f);
}

export function createPlan(desired: DesiredState, live: LiveState, options: PlanOptions): Plan {
  const index = LiveIndex.of(live);
  const built = buildChanges({
    desired,
    live,
    index,
    targets: options.targets,
    changed: options.changed,
    recordedPauses: options.recorded,
  });
  const thresholds = { ...DEFAULT_THRESHOLDS, ...options.thresholds };
  const spend = spendSummary({
    changes: built.changes,
    live: index,
    advertisers: live.advertisers,
    now: options.now,
  });
  const campaignSpend = campaignSpendChanges({ changes: built.changes, live: index, now: options.now });
  const budgetMoney = budgetMoneyChanges({
    changes: built.changes,
    live: index,
    advertisers: live.advertisers,
  });
  const allowed = [...new Set(options.allowed ?? [])].sort();
  const saved = savedThresholds(options.thresholds);
  const findings: Finding[] = [
    ...built.findings,
    ...recordFindings(options.recordIssues ?? []),
    // Before scheduling: a budget below what is delivered or spent leaves nothing to apply.
    ...overspentBudgets({ changes: built.changes, live: index, now: options.now, allowed }),
    // Before scheduling too: a denied policy leaves nothing to apply.
    ...policyFindings({
      desired,
      changes: built.changes,
      live: index,
      spend,
      thresholds,
      allowed,
      now: options.now,
    }),
  ];
  const policy = policySummary(desired, options.changed);
  if (policy && policy.loosened.length > 0) {
    findings.unshift(
      finding(
        "DOOH907",
        `this change loosens the guardrail policy since ${options.changed?.since} (${options.changed?.commit.slice(0, 12)}): ${policy.loosened.join("; ")}`,
      ),
    );
  }
  let requests: PlannedRequest[] = [];
  let pauses: PauseSummary | undefined;
  if (!hasErrors(findings)) {
    const interval = options.rateLimits.write.windowMs / options.rateLimits.write.limit;
    const maxDarkRequests =
      options.maxPauseMs === undefined ? undefined : Math.floor(options.maxPauseMs / interval);
    const endpoints = endpointsFor(desired.connection.dialect);
    const schedule = scheduleRequests(built, {
      endpoints,
      ...(maxDarkRequests === undefined ? {} : { maxDarkRequests }),
    });
    requests = schedule.requests;
    pauses = pauseSummary({ choice: schedule.pauses, requests, changes: built.changes, options });
    if (!schedule.pauses.boundMet) {
      findings.push(
        finding(
          "DOOH204",
          `--max-pause ${options.maxPauseMs! / 1000} s cannot be met: the shortest layout still pauses a campaign for about ${Time.formatDuration(schedule.pauses.layout.maxDark * interval)} (its pause, its targeting PUT and its reactivation at ${RateLimit.formatWindow(options.rateLimits.write)}); raise --max-pause`,
        ),
      );
    }
    append(findings, simulate({ live: index, targetings: live.targetings, requests, desired }));
    if (hasErrors(findings)) requests = [];
  }
  findings.push(
    ...analyze({
      changes: built.changes,
      requests,
      live: index,
      finalActive: new Map(built.campaigns.map((w) => [w.key, w.finalActive])),
      now: options.now,
      thresholds,
      policed: (change, field) => policedIncrease(desired, change, field),
      rateLimits: options.rateLimits,
      ...(options.writeWindowBusyMs ? { writeWindowBusyMs: options.writeWindowBusyMs } : {}),
    }),
  );
  return {
    format_version: PLAN_FORMAT_VERSION,
    tool_version: options.toolVersion,
    created_at: options.now,
    // One of several accounts (connection.account): `apply --plan` refuses another account's plan.
    ...(desired.connection.account ? { account: desired.connection.account.name } : {}),
    connection: {
      api_origin: options.connection.api_origin,
      environment: options.connection.environment,
      rate_limits: RateLimit.formatList(options.rateLimits),
      ...(options.connection.user !== undefined ? { user: options.connection.user } : {}),
    },
    config_files: desired.files.map((f) => ({ path: f.path, sha256: f.sha256 })),
    targets: [...(options.targets ?? [])],
    ...(options.maxPauseMs !== undefined ? { max_pause_ms: options.maxPauseMs } : {}),
    ...(allowed.length > 0 ? { allowed } : {}),
    ...(saved !== undefined ? { thresholds: saved } : {}),
    ...(options.changed ? { scope: options.changed } : {}),
    fingerprints: fingerprints(live, index, built.normalizedLiveTargetings),
    changes: built.changes,
    requests,
    findings: orderFindings(findings),
    summary: {
      ...planSummary({
        changes: built.changes,
        requests,
        readRequests: live.readRequests,
        rateLimits: options.rateLimits,
        writeWindowBusyMs: options.writeWindowBusyMs,
        insertionOrderOrder: desired.insertionOrders.map((io) => io.id),
      }),
      spend,
      ...(campaignSpend.length > 0 ? { campaign_spend: campaignSpend } : {}),
      ...(budgetMoney.length > 0 ? { budget_money: budgetMoney } : {}),
      ...(policy ? { policy } : {}),
      ...(pauses && requests.length > 0 ? { pauses } : {}),
    },
  };
}
