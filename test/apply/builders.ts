/** Small builders of plans and results for the apply tests that need no server. */
import type { ApplyRequestRecord, ApplyResult } from "../../src/model/apply-report.js";
import type { SourceRef } from "../../src/model/desired.js";
import type { Change, Plan, PlannedRequest } from "../../src/plan/types.js";

export function source(line: number, path = "insertion_orders[0]"): SourceRef {
  return { file: "doohctl.yaml", line, column: 7, path };
}

export function planWith(changes: Change[], requests: PlannedRequest[]): Plan {
  return {
    format_version: 1,
    tool_version: "0.0.0-test",
    created_at: "2026-11-01T00:00:00Z",
    connection: { api_origin: "http://127.0.0.1:1", environment: "production" },
    config_files: [],
    targets: [],
    fingerprints: [],
    changes,
    requests,
    findings: [],
    summary: {
      actions: {},
      write_requests: requests.length,
      read_requests: 0,
      estimated_apply_ms: 0,
      write_window: "10/60s",
      insertion_orders: [],
    },
  };
}

export function record(overrides: Partial<ApplyRequestRecord> = {}): ApplyRequestRecord {
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

export function result(overrides: Partial<ApplyResult> = {}): ApplyResult {
  return {
    status: "applied",
    started_at: "2026-11-01T00:00:00.000Z",
    finished_at: "2026-11-01T00:01:00.000Z",
    applied: [record()],
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
