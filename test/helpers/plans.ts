/** Plans and apply results for tests: planned with fixed options, or built whole where no planner is needed. */
import type { ApplyRequestRecord, ApplyResult } from "../../src/model/apply-report.js";
import type { DesiredState } from "../../src/model/desired.js";
import { PUBLISHED_RATE_LIMITS } from "../../src/model/limits.js";
import { deactivatingChangeIds } from "../../src/plan/changes/changes.js";
import { createPlan } from "../../src/plan/planner.js";
import type { LiveState, Plan, PlanOptions } from "../../src/plan/types.js";
import { renderMarkdown } from "../../src/render/markdown.js";

export const PLAN_OPTIONS: PlanOptions = {
  now: "2026-11-01T00:00:00Z",
  toolVersion: "0.1.0",
  connection: { api_origin: "http://127.0.0.1:4010", environment: "production" },
  rateLimits: PUBLISHED_RATE_LIMITS,
};

export function plan(d: DesiredState, live: LiveState, options: Partial<PlanOptions> = {}): Plan {
  return createPlan(d, live, { ...PLAN_OPTIONS, ...options });
}

/** The Markdown comment of a plan, with what the CLI computes for it (src/cli/commands/plan.ts). */
export function markdownOf(p: Plan): string {
  return renderMarkdown(p, { deactivating: deactivatingChangeIds(p.changes) });
}

/** `PATCH /campaigns` bodies of a plan, per phase: compact to assert on. */
export function bodies(p: Plan, phase: number): unknown[] {
  return p.requests.filter((r) => r.phase === phase).map((r) => r.body);
}

export function requestRecord(overrides: Partial<ApplyRequestRecord> = {}): ApplyRequestRecord {
  return {
    seq: 1,
    phase: 3,
    method: "PATCH",
    path: "/api/dsp/v1/campaigns",
    items: 2,
    description: "PATCH 2 campaigns",
    status: 200,
    duration_ms: 120,
    attempts: 1,
    ...overrides,
  };
}

export function applyResult(overrides: Partial<ApplyResult> = {}): ApplyResult {
  return {
    status: "applied",
    started_at: "2026-11-01T00:00:00.000Z",
    finished_at: "2026-11-01T00:01:00.000Z",
    applied: [requestRecord()],
    not_sent: [],
    created: {},
    summary: {
      actions: { update_campaign: 2 },
      planned_requests: 1,
      applied_requests: 1,
      write_requests: 1,
      read_requests: 0,
      retries: 0,
      rate_limited: 0,
      elapsed_ms: 60_000,
    },
    ...overrides,
  };
}
