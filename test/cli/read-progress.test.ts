import { describe, expect, it } from "vitest";
import type { ApiEvent } from "../../src/api/types.js";
import { createReadProgress } from "../../src/cli/read-progress.js";
import { VirtualClock } from "../../src/model/clock.js";

function sink(tty: boolean) {
  let text = "";
  const write = (t: string) => {
    text += t;
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
