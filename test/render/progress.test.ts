import { describe, expect, it } from "vitest";
import type { TextSink } from "../../src/cli/io.js";
import { createProgressDisplay } from "../../src/cli/progress.js";
import { VirtualClock } from "../../src/model/clock.js";
import { terminalText } from "../../src/model/printable.js";
import { type ProgressView, progressLine } from "../../src/render/progress.js";
import { requestRecord } from "../helpers/plans.js";

/** Request 7 of a 17-request apply, waiting 4 s for its write slot. */
const view: ProgressView = {
  done: 6,
  total: 17,
  writeIntervalMs: 6_000,
  current: { seq: 7, phase: 4, method: "PUT", path: "/api/dsp/v1/campaigns/5002/targetings", items: 1 },
  wait: { until: 4_000, reason: "rate-limit" },
};

describe("the progress line fits the terminal", () => {
  it("shows everything at 200 columns", () => {
    expect(progressLine(view, 0, 200)).toBe(
      "[#######-------------] 6/17  phase 4 replace targetings  PUT /api/dsp/v1/campaigns/5002/targetings (1 item)  next write slot in 4s  ETA 1m04s",
    );
  });

  it("drops the phase's name and the request at 80 columns, and stays under the last column", () => {
    const line = progressLine(view, 0, 80);
    expect(line).toBe("[####------] 6/17  phase 4  next write slot in 4s  ETA 1m04s");
    expect(line.length).toBeLessThan(80);
  });

  it("keeps the count, the countdown and the ETA at 60 columns", () => {
    const line = progressLine(view, 0, 60);
    expect(line).toBe("6/17  next write slot in 4s  ETA 1m04s");
    expect(line.length).toBeLessThan(60);
  });

  it("keeps the count and the ETA on a very narrow terminal, and cuts only past them", () => {
    expect(progressLine(view, 0, 30)).toBe("6/17  ETA 1m04s");
    expect(progressLine(view, 0, 10)).toBe("6/17  ET…");
  });

  it.each([60, 80, 200])(
    "redraws a 17-request apply on a %i-column TTY without a line longer than the terminal",
    (columns) => {
      let text = "";
      const sink: TextSink = {
        write: (t) => {
          text += terminalText(t);
        },
        isTTY: true,
        columns,
      };
      const clock = new VirtualClock({ start: 0 });
      const display = createProgressDisplay({ sink, clock, writeWindow: { limit: 10, windowMs: 60_000 } });
      display.onEvent({ type: "start", total: 17, at: 0 });
      for (let seq = 1; seq <= 17; seq++) {
        const path = `/api/dsp/v1/campaigns/${5000 + seq}/targetings`;
        display.onEvent({
          type: "request",
          seq,
          phase: 4,
          method: "PUT",
          path,
          items: 1,
          description: "x",
          done: seq - 1,
          total: 17,
          at: 0,
        });
        display.onEvent({
          type: "api",
          event: {
            type: "wait",
            class: "write",
            reason: "rate-limit",
            until: clock.now() + 6_000,
            waitMs: 6_000,
          },
        });
        clock.advance(6_000);
        display.onEvent({
          type: "applied",
          record: requestRecord({ seq, path }),
          item_ids: [],
          done: seq,
          total: 17,
        });
      }
      display.stop();
      // Each redraw is `\r<line>\x1b[K`: what lies between carriage returns is one screen line.
      const drawn = text
        .split(/\r|\n/)
        .map((s) => s.replace("\u001b[K", ""))
        .filter(Boolean);
      expect(drawn.length).toBeGreaterThan(17);
      for (const line of drawn) expect(line.length, line).toBeLessThan(columns);
      expect(text.match(/\n/g)).toHaveLength(1);
      expect(drawn.at(-1)).toMatch(/17\/17 .*ETA 0s$/);
    },
  );
});

describe("the progress line after a stop", () => {
  /** A TTY display after request 2 (a pause) was abandoned and the restore began. */
  function restoring() {
    let text = "";
    const sink: TextSink = {
      write: (t) => {
        text += terminalText(t);
      },
      isTTY: true,
      columns: 200,
    };
    const clock = new VirtualClock({ start: 0 });
    const display = createProgressDisplay({ sink, clock, writeWindow: { limit: 10, windowMs: 60_000 } });
    display.onEvent({ type: "start", total: 4, at: 0 });
    const abandoned = requestRecord({ seq: 2, path: "/api/dsp/v1/campaigns/5001/targetings", method: "PUT" });
    display.onEvent({ type: "request", ...abandoned, done: 1, total: 4, at: 0 });
    display.onEvent({ type: "abandoned", record: { ...abandoned, status: "abandoned" }, item_ids: [] });
    display.onEvent({ type: "restore", campaigns: 2 });
    display.onEvent({
      type: "api",
      event: { type: "wait", class: "write", reason: "rate-limit", until: 12_000, waitMs: 12_000 },
    });
    const drawn = text.split("\r").filter(Boolean);
    return { last: drawn.at(-1)?.replace("\u001b[K", "") ?? "", display };
  }

  it("names the reactivation it waits for, not the abandoned request", () => {
    const { last, display } = restoring();
    display.stop();
    expect(last).not.toContain("/targetings");
    expect(last).not.toContain("phase");
    expect(last).toBe(
      "[--------------------] 0/4  reactivating 2 paused campaigns: waiting 12s for a write slot  ETA 12s",
    );
  });

  it("keeps the reactivation's count and countdown on a narrow terminal", () => {
    const view: ProgressView = {
      done: 1,
      total: 4,
      writeIntervalMs: 6_000,
      restoring: 1,
      wait: { until: 12_000, reason: "rate-limit" },
    };
    const line = progressLine(view, 0, 60);
    expect(line).toBe("1/4  reactivating: next write slot in 12s  ETA 12s");
    expect(line.length).toBeLessThan(60);
  });
});

/** A request without an answer, on apply's progress. */
describe("a request that gets no answer", () => {
  const silent: ProgressView = {
    done: 1,
    total: 4,
    writeIntervalMs: 6_000,
    current: { seq: 2, phase: 4, method: "PATCH", path: "/api/dsp/v1/campaigns", items: 3 },
    awaiting: { sentAt: 0, deadline: 60_000, tries: { attempt: 2, of: 4 } },
  };

  it("counts down to the deadline once the request has been silent a while", () => {
    expect(progressLine(silent, 1_000, 200)).not.toContain("no answer");
    expect(progressLine(silent, 18_000, 200)).toBe(
      "[#####---------------] 1/4  phase 4 replace targetings  PATCH /api/dsp/v1/campaigns (3 items)  no answer yet (attempt 2 of 4), deadline in 42s  ETA 12s",
    );
  });

  it("rounds a countdown up: a wait that has not ended never reads 0s, one that has is not shown", () => {
    const waiting: ProgressView = { ...silent, wait: { until: 18_300, reason: "backoff" } };
    expect(progressLine(waiting, 18_000, 200)).toContain("retrying in 1s");
    expect(progressLine(waiting, 18_300, 200)).not.toContain("retrying");
  });

  it("without a TTY, says no answer or no connection with the attempt count, and hides sub-second waits", () => {
    let text = "";
    const sink: TextSink = {
      write: (t) => {
        text += terminalText(t);
      },
      isTTY: false,
    };
    const clock = new VirtualClock({ start: 0 });
    const display = createProgressDisplay({ sink, clock, writeWindow: { limit: 10, windowMs: 60_000 } });
    const sent = (id: number, attempt: number) =>
      display.onEvent({
        type: "api",
        event: {
          type: "sent",
          id,
          class: "write",
          method: "PATCH",
          path: "/api/dsp/v1/campaigns",
          tries: { attempt, of: 4 },
          deadline: clock.now() + 60_000,
          timeoutMs: 60_000,
        },
      });
    const failed = (id: number, status: "timeout" | "network-error") =>
      display.onEvent({
        type: "api",
        event: {
          type: "response",
          id,
          class: "write",
          method: "PATCH",
          path: "/api/dsp/v1/campaigns",
          items: 3,
          status,
          durationMs: 60_000,
          attempt: id,
          waitedMs: 0,
        },
      });
    const backoff = (ms: number) =>
      display.onEvent({
        type: "api",
        event: { type: "wait", class: "write", reason: "backoff", until: clock.now() + ms, waitMs: ms },
      });
    sent(1, 1);
    clock.advance(60_000);
    failed(1, "timeout");
    backoff(0);
    sent(2, 2);
    failed(2, "network-error");
    backoff(2_500);
    display.stop();
    expect(text).toBe(
      [
        "  ... PATCH /api/dsp/v1/campaigns: no answer after 60s (attempt 1 of 4)",
        "  ... PATCH /api/dsp/v1/campaigns: no connection (attempt 2 of 4)",
        "  ... retrying in 3s",
        "",
      ].join("\n"),
    );
  });
});
