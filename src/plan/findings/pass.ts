/**
 * The findings pass (ARCHITECTURE.md#the-plans-stages) over the finished changes and requests:
 * first what stops a plan (what changes/ met, a budget below delivery, a denied policy; then an
 * unmet `--max-pause`, a G8 rule broken: simulate.ts), which leaves no requests; then the analyzers.
 */
import { append } from "../../model/append.js";
import type { DesiredState } from "../../model/desired.js";
import { RateLimit } from "../../model/limits.js";
import { Time } from "../../model/time.js";
import type { Built } from "../changes/build.js";
import { finding } from "../finding-catalogue.js";
import type { Schedule } from "../requests/schedule.js";
import type { Finding, LiveState, PlannedRequest, PlanOptions, PlanSummary } from "../types.js";
import { analyze, DEFAULT_THRESHOLDS } from "./analyze.js";
import { overspentBudgets } from "./delivery.js";
import { hasErrors } from "./findings.js";
import { policedIncrease, policyFindings } from "./policy.js";
import { simulate } from "./simulate.js";
import { budgetMoneyChanges, campaignSpendChanges, spendSummary } from "./spend.js";

export interface PassInput {
  desired: DesiredState;
  live: LiveState;
  /** The changes, built over `live` indexed once for the whole plan (`built.index`). */
  built: Built;
  schedule: Schedule;
  options: PlanOptions;
  /** `--allow`, each code once, sorted. */
  allowed: readonly string[];
}

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

/** Errors, then warnings, then the rest; each in the order found (a sort keeps ties in place). */
function bySeverity(a: Finding, b: Finding): number {
  return SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity];
}

/** DOOH907: the guardrail policy loosened since `--changed-since REF`. */
function loosenedPolicy(changed: PlanOptions["changed"]): Finding[] {
  if (!changed?.loosened_policy?.length) return [];
  const { since, commit, loosened_policy: loosened } = changed;
  return [
    finding(
      "DOOH907",
      `this change loosens the guardrail policy since ${since} (${commit.slice(0, 12)}): ${loosened.join("; ")}`,
    ),
  ];
}

/** DOOH204: no layout of the pauses keeps every campaign dark for less than `--max-pause`. */
function maxPauseUnmet(schedule: Schedule, options: PlanOptions): Finding[] {
  if (schedule.pauses.boundMet) return [];
  const { write } = options.rateLimits;
  const dark = schedule.pauses.layout.maxDark * (write.windowMs / write.limit);
  return [
    finding(
      "DOOH204",
      `--max-pause ${options.maxPauseMs! / 1000} s cannot be met: the shortest layout still pauses a campaign for about ${Time.formatDuration(dark)} (its pause, its targeting PUT and its reactivation at ${RateLimit.formatWindow(write)}); raise --max-pause`,
    ),
  ];
}

/** The findings (`bySeverity`), the requests (none after an error) and the money table (docs/plan.md). */
export function judge(input: PassInput): {
  findings: Finding[];
  requests: PlannedRequest[];
  money: Pick<PlanSummary, "spend" | "campaign_spend" | "budget_money">;
} {
  const { desired, built, options, allowed } = input;
  const live = built.index;
  const { changes } = built;
  const { now, rateLimits, writeWindowBusyMs } = options;
  const thresholds = { ...DEFAULT_THRESHOLDS, ...options.thresholds };
  const advertisers = input.live.advertisers;
  const spend = spendSummary({ changes, live, advertisers, now });
  const findings: Finding[] = [
    ...loosenedPolicy(options.changed),
    ...built.findings,
    ...overspentBudgets({ changes, live, now, allowed }),
    ...policyFindings({ desired, changes, live, spend, thresholds, allowed, now }),
  ];
  if (!hasErrors(findings)) {
    append(findings, maxPauseUnmet(input.schedule, options));
    const { targetings } = input.live;
    append(findings, simulate({ live, targetings, requests: input.schedule.requests, desired }));
  }
  const requests = hasErrors(findings) ? [] : input.schedule.requests;
  const analyzed = analyze({
    changes,
    requests,
    live,
    finalActive: new Map(built.campaigns.map((w) => [w.key, w.finalActive])),
    now,
    thresholds,
    policed: (change, field) => policedIncrease(desired, change, field),
    rateLimits,
    ...(writeWindowBusyMs ? { writeWindowBusyMs } : {}),
  });
  const campaignSpend = campaignSpendChanges({ changes, live, now });
  const budgetMoney = budgetMoneyChanges({ changes, live, advertisers });
  return {
    findings: [...findings, ...analyzed].sort(bySeverity),
    requests,
    money: {
      spend,
      ...(campaignSpend.length > 0 ? { campaign_spend: campaignSpend } : {}),
      ...(budgetMoney.length > 0 ? { budget_money: budgetMoney } : {}),
    },
  };
}
