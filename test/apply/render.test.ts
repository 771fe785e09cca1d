import { describe, expect, it } from "vitest";
import { createProgressDisplay } from "../../src/cli/progress.js";
import { VirtualClock } from "../../src/model/clock.js";
import { terminalText } from "../../src/model/printable.js";
import { progressLine, requestLine } from "../../src/render/progress.js";
import { renderApplyReport } from "../../src/render/report.js";
import { source } from "../helpers/builders.js";
import { applyResult, requestRecord } from "../helpers/plans.js";

/** Request 1 of the reports below: applied as sent. */
const WIDENED = requestRecord({
  seq: 1,
  phase: 1,
  path: "/api/dsp/v1/insertion_orders",
  description: "widen 1 insertion order",
});

describe("apply report", () => {
  it("summarizes a complete apply per action with request counts and elapsed time", () => {
    expect(renderApplyReport(applyResult())).toBe(
      [
        "Apply complete.",
        "Applied 1 of 1 request in 1m00s.",
        "  2 campaigns updated",
        "  1 write request, 0 read requests, 0 retries",
        "",
      ].join("\n"),
    );
  });

  it("lists what was applied, the failed request with each field at its file:line, and what was not sent", () => {
    const failed = requestRecord({ seq: 2, status: 422, description: "PATCH 2 campaigns (updates)" });
    const text = renderApplyReport(
      applyResult({
        status: "failed",
        applied: [WIDENED],
        failure: {
          request: failed,
          code: "API_ERROR",
          message: "Invalid Request",
          http_status: 422,
          fields: [
            {
              field: "campaigns[1].cpm",
              messages: ["currency must equal the insertion order's budget currency"],
              item: 1,
              change_ids: ["c2"],
              addresses: ["campaign.1001/Airports"],
              sources: [source(14)],
            },
          ],
        },
        not_sent: [
          {
            seq: 3,
            phase: 6,
            method: "PATCH",
            path: "/api/dsp/v1/campaigns",
            items: 1,
            description: "activate 1 campaign",
          },
        ],
        summary: { ...applyResult().summary, planned_requests: 3, applied_requests: 1, actions: {} },
      }),
    );
    expect(text).toBe(
      [
        "Apply failed at request 2 of 3: PATCH /api/dsp/v1/campaigns (PATCH 2 campaigns (updates))",
        "  422 Invalid Request [API_ERROR]",
        "  campaigns[1].cpm: currency must equal the insertion order's budget currency",
        "    from campaign.1001/Airports (doohctl.yaml:14)",
        "",
        "Applied as sent (1):",
        "  1. PATCH /api/dsp/v1/insertion_orders: widen 1 insertion order -> 200 in 120ms",
        "",
        "Not sent (1):",
        "  3. PATCH /api/dsp/v1/campaigns: activate 1 campaign (1 item)",
        "",
        "Applied 1 of 3 requests in 1m00s.",
        "  1 write request, 0 read requests, 0 retries",
        "",
        "Run doohctl plan to see exactly what remains.",
        "",
      ].join("\n"),
    );
  });

  it("names a request the DSP took otherwise than sent as applied differently, apart from what was applied as sent", () => {
    const taken = requestRecord({ seq: 2, description: "PATCH 1 campaign (updates)", items: 1 });
    const text = renderApplyReport(
      applyResult({
        status: "failed",
        applied: [WIDENED],
        failure: {
          request: taken,
          code: "APPLY_INCONSISTENT_RESULT",
          message: "the DSP accepted the request but did not apply it as sent (an inconsistent result)",
          landed: true,
          fields: [
            {
              field: "campaigns[0].budget_impressions",
              messages: ["campaign 5001: sent 600000, the DSP shows 500000 (G4)"],
              item: 0,
              change_ids: ["c1"],
              addresses: ["campaign.1001/Malls"],
              sources: [source(14)],
            },
          ],
          inconsistent: [
            {
              object: "campaign 5001",
              member: "budget_impressions",
              sent: 600000,
              answered: 500000,
              explain: "G4",
            },
          ],
        },
        summary: { ...applyResult().summary, planned_requests: 2, applied_requests: 1, actions: {} },
      }),
    );
    expect(text).toBe(
      [
        "Apply stopped at request 2 of 2, which the DSP accepted: PATCH /api/dsp/v1/campaigns (PATCH 1 campaign (updates))",
        "  the DSP accepted the request but did not apply it as sent (an inconsistent result) [APPLY_INCONSISTENT_RESULT]",
        "  campaigns[0].budget_impressions: campaign 5001: sent 600000, the DSP shows 500000 (G4)",
        "    from campaign.1001/Malls (doohctl.yaml:14)",
        "",
        "Applied as sent (1):",
        "  1. PATCH /api/dsp/v1/insertion_orders: widen 1 insertion order -> 200 in 120ms",
        "",
        "Applied differently (1):",
        "  2. PATCH /api/dsp/v1/campaigns: PATCH 1 campaign (updates) -> 200 in 120ms",
        "",
        "Not sent (0):",
        "  none",
        "",
        "Applied 1 of 2 requests in 1m00s.",
        "  1 write request, 0 read requests, 0 retries",
        "",
        "Run doohctl plan to see exactly what remains.",
        "",
      ].join("\n"),
    );
    expect(text).not.toContain("Apply complete");
  });

  it("says, after a complete apply, which answers could not be read and the ids it learnt by name", () => {
    const text = renderApplyReport(
      applyResult({
        applied: [
          requestRecord({
            method: "POST",
            phase: 2,
            description: "create 1 campaign",
            recovered: "created",
            unreadable_answer: "it holds no campaigns for 1 sent",
            learnt_ids: ["5010"],
          }),
        ],
        created: { c1: "5010" },
      }),
    );
    expect(text).toContain("  new campaign ids: 5010\n");
    expect(text).toContain(
      "  1 answer could not be read; the result was learnt otherwise:\n" +
        "    1. POST /api/dsp/v1/campaigns: create 1 campaign -> 200 in 120ms; its answer could not be read (it holds no campaigns for 1 sent): new campaign ids learnt by name: 5010\n",
    );
  });

  it("says which request was abandoned when interrupted", () => {
    const text = renderApplyReport(
      applyResult({ status: "interrupted", applied: [], abandoned: requestRecord({ status: "abandoned" }) }),
    );
    expect(text).toMatch(/^Apply interrupted after 0 of 1 request\./);
    expect(text).toMatch(
      /abandoned: 1\. PATCH \/api\/dsp\/v1\/campaigns .*doohctl plan shows whether it took effect/,
    );
  });
});

describe("progress lines", () => {
  it("shows phase, done of total, the current request, the countdown to the next slot and the ETA", () => {
    const line = progressLine(
      {
        done: 3,
        total: 10,
        current: { seq: 4, phase: 3, method: "PATCH", path: "/api/dsp/v1/campaigns", items: 100 },
        wait: { until: 38_000, reason: "rate-limit" },
        writeIntervalMs: 6_000,
      },
      0,
    );
    expect(line).toBe(
      "[######--------------] 3/10  phase 3 update and deactivate campaigns  PATCH /api/dsp/v1/campaigns (100 items)  next write slot in 38s  ETA 1m14s",
    );
  });

  it("writes one line per request without a TTY", () => {
    expect(requestLine(requestRecord({ attempts: 2, duration_ms: 1500 }), 7)).toBe(
      "[1/7] phase 3 PATCH /api/dsp/v1/campaigns 2 items -> 200 in 1.5s, 2 attempts",
    );
  });
});

describe("progress display", () => {
  /** stderr as a command gets it: through the boundary (src/cli/io.ts). */
  function sink(isTTY: boolean) {
    let text = "";
    return {
      isTTY,
      write: (t: string) => {
        text += terminalText(t);
      },
      text: () => text,
    };
  }

  it("shows a Retry-After wait as a countdown line rather than silence on a non-TTY", () => {
    const clock = new VirtualClock({ start: 0 });
    const out = sink(false);
    const display = createProgressDisplay({ sink: out, clock, writeWindow: { limit: 10, windowMs: 60_000 } });
    display.onEvent({ type: "start", total: 1, at: 0 });
    display.onEvent({
      type: "request",
      seq: 1,
      phase: 3,
      method: "PATCH",
      path: "/api/dsp/v1/campaigns",
      items: 2,
      description: "x",
      done: 0,
      total: 1,
      at: 0,
    });
    display.onEvent({
      type: "api",
      event: { type: "wait", class: "write", reason: "retry-after", until: 12_000, waitMs: 12_000 },
    });
    display.onEvent({ type: "applied", record: requestRecord(), item_ids: [], done: 1, total: 1 });
    display.stop();
    expect(out.text()).toBe(
      [
        "phase 3: update and deactivate campaigns",
        "  ... 429: retrying in 12s (Retry-After)",
        "[1/1] phase 3 PATCH /api/dsp/v1/campaigns 2 items -> 200 in 120ms",
        "",
      ].join("\n"),
    );
  });

  it("redraws a single line in place on a TTY and ends it with a newline", () => {
    const clock = new VirtualClock({ start: 0 });
    const out = sink(true);
    const display = createProgressDisplay({ sink: out, clock, writeWindow: { limit: 10, windowMs: 60_000 } });
    display.onEvent({ type: "start", total: 2, at: 0 });
    display.onEvent({ type: "applied", record: requestRecord(), item_ids: [], done: 1, total: 2 });
    display.stop();
    const text = out.text();
    expect(text.split("\n")).toHaveLength(2);
    expect(text.endsWith("\n")).toBe(true);
    expect(text).toContain("\r[##########----------] 1/2");
  });
});
