import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ApiEvent } from "../../src/api/types.js";
import { createReadProgress } from "../../src/cli/read-progress.js";
import { VirtualClock } from "../../src/model/clock.js";
import { terminalText } from "../../src/model/printable.js";

/** A stream as commands get it: through the boundary (src/cli/io.ts), which turns doohctl's own redraws back into control sequences. */
function sink(tty: boolean) {
  let text = "";
  const write = (t: string) => {
    text += terminalText(t);
  };
  return { write, isTTY: tty, text: () => text };
}

const wait = (now: number, ms: number, reason: "rate-limit" | "retry-after" = "rate-limit"): ApiEvent => ({
  type: "wait",
  class: "get",
  reason,
  until: now + ms,
  waitMs: ms,
});

describe("plan's read progress", () => {
  it("shows a wait for a read slot as a countdown redrawn in place on a TTY", () => {
    const clock = new VirtualClock({ start: 0 });
    const out = sink(true);
    const display = createReadProgress({ sink: out, clock, tickMs: 60_000 });
    display.onStep({ step: "targetings", count: 150, requests: 100 });
    display.onApi(wait(0, 42_000));
    expect(out.text()).toBe(
      "doohctl: reading targetings (150), 100 requests so far\n\rdoohctl: waiting 42s for a read slot (rate limit window)\x1b[K",
    );
    display.stop();
    expect(out.text().endsWith("\r\x1b[K")).toBe(true);
  });

  it("writes a line for a wait without a TTY once it is long enough to look like a hang", () => {
    const clock = new VirtualClock({ start: 0 });
    const out = sink(false);
    const display = createReadProgress({ sink: out, clock });
    display.onApi(wait(0, 1_000));
    display.onApi(wait(0, 42_000));
    display.onApi(wait(0, 2_000, "retry-after"));
    display.stop();
    expect(out.text()).toBe(
      "doohctl: waiting 42s for a read slot (rate limit window)\ndoohctl: 429: retrying in 2s (Retry-After)\n",
    );
  });
});

/** A GET that is never answered. */
describe("a request that gets no answer", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const PATH = "/api/dsp/v1/campaigns";
  const sent = (id: number, now: number, attempt: number): ApiEvent => ({
    type: "sent",
    id,
    class: "get",
    method: "GET",
    path: PATH,
    tries: { attempt, of: 4 },
    deadline: now + 60_000,
    timeoutMs: 60_000,
  });
  const answered = (id: number, status: number | "timeout" | "network-error"): ApiEvent => ({
    type: "response",
    id,
    class: "get",
    method: "GET",
    path: PATH,
    items: 0,
    status,
    durationMs: 60_000,
    attempt: id,
    waitedMs: 0,
  });
  const backoff = (now: number, ms: number): ApiEvent => ({
    type: "wait",
    class: "get",
    reason: "backoff",
    until: now + ms,
    waitMs: ms,
  });
  /** Both clocks on: the display's virtual clock and its real (faked) redraw timer. */
  const advance = (clock: VirtualClock, ms: number) => {
    for (let step = 0; step < ms; step += 1_000) {
      clock.advance(1_000);
      vi.advanceTimersByTime(1_000);
    }
  };

  it("on a TTY, counts down to the deadline, then says no answer with the attempt count", () => {
    const clock = new VirtualClock({ start: 0 });
    const out = sink(true);
    const display = createReadProgress({ sink: out, clock });
    display.onApi(sent(1, 0, 1));
    advance(clock, 1_000);
    expect(out.text()).toBe("");
    advance(clock, 17_000);
    expect(out.text()).toContain(
      `\rdoohctl: waiting for an answer to GET ${PATH} (attempt 1 of 4): deadline in 42s\x1b[K`,
    );
    advance(clock, 42_000);
    display.onApi(answered(1, "timeout"));
    expect(out.text()).toContain(`\r\x1b[Kdoohctl: GET ${PATH}: no answer after 60s (attempt 1 of 4)\n`);
    display.onApi(backoff(clock.now(), 0));
    display.onApi(backoff(clock.now(), 400));
    display.onApi(sent(2, clock.now(), 2));
    advance(clock, 3_000);
    expect(out.text().endsWith(`(attempt 2 of 4): deadline in 57s\x1b[K`)).toBe(true);
    display.onApi(answered(2, 200));
    display.stop();
    expect(out.text()).not.toMatch(/in 0s/);
    expect(out.text().endsWith("\r\x1b[K")).toBe(true);
  });

  it("without a TTY, says once that a request is silent, then no answer, and never 'retrying in 0s'", () => {
    const clock = new VirtualClock({ start: 0 });
    const out = sink(false);
    const display = createReadProgress({ sink: out, clock });
    display.onApi(sent(1, 0, 1));
    advance(clock, 30_000);
    advance(clock, 30_000);
    display.onApi(answered(1, "timeout"));
    display.onApi(backoff(clock.now(), 0));
    display.onApi(sent(2, clock.now(), 2));
    display.onApi(answered(2, "network-error"));
    display.onApi(backoff(clock.now(), 2_500));
    display.stop();
    expect(out.text()).toBe(
      [
        `doohctl: GET ${PATH}: no answer yet after 10s (attempt 1 of 4); deadline in 50s`,
        `doohctl: GET ${PATH}: no answer after 60s (attempt 1 of 4)`,
        `doohctl: GET ${PATH}: no connection (attempt 2 of 4)`,
        "doohctl: retrying in 3s",
        "",
      ].join("\n"),
    );
  });
});
