/**
 * The one progress display (src/cli/progress.ts) as apply uses it. Plan's reading on it:
 * read-progress.test.ts; apply's line and its width: test/render/progress.test.ts and
 * test/apply/render.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { TextSink } from "../../src/cli/io.js";
import { run } from "../../src/cli/program.js";
import { createProgressDisplay } from "../../src/cli/progress.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { VirtualClock } from "../../src/model/clock.js";
import { interruptibleIO } from "../helpers/io.js";
import { CAMPAIGNS, pausingAccount } from "../proof/paused-account.js";

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe("apply's progress after a stop", () => {
  it("draws nothing after the reactivation's outcome: no stale 'reactivating ... ETA 0s' line", async () => {
    const world = await pausingAccount(0);
    emulator = world.emulator;
    const { io, interrupt } = interruptibleIO({ env: world.env, cwd: world.dir, tty: true });
    let pressed = false;
    world.emulator.onWrite((entry) => {
      if (entry.method !== "PUT" || pressed) return;
      pressed = true;
      interrupt("SIGINT");
    });
    expect(await run(["apply", "--auto-approve", "--no-session-cache"], io), io.err()).toBe(130);
    expect(world.inactive()).toEqual([]);
    const err = io.err();
    // The bar was drawn while the apply ran, and again while it reactivated.
    expect(err).toMatch(/\r\[[#-]+\] \d\/\d+ {2}phase/);
    expect(err).toMatch(/\r\[[#-]+\] \d\/\d+ {2}reactivating 3 paused campaigns/);
    const outcome = `delivery restored: ${CAMPAIGNS.length} campaigns active again\n`;
    const after = err.slice(err.lastIndexOf(outcome) + outcome.length);
    expect(err.lastIndexOf(outcome)).toBeGreaterThan(0);
    expect(after).toBe("doohctl apply: interrupted (SIGINT)\n");
    expect(io.out()).toContain("Delivery restored: 3 campaigns");
  });
});

describe("apply's progress without a TTY", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("says once that a write is silent, as plan's reading does, then its outcome", () => {
    let text = "";
    const sink: TextSink = {
      write: (t) => {
        text += t;
      },
      isTTY: false,
    };
    const clock = new VirtualClock({ start: 0 });
    const display = createProgressDisplay({ sink, clock, writeWindow: { limit: 10, windowMs: 60_000 } });
    const path = "/api/dsp/v1/campaigns";
    display.onEvent({
      type: "api",
      event: {
        type: "sent",
        id: 1,
        class: "write",
        method: "PATCH",
        path,
        tries: { attempt: 1, of: 4 },
        deadline: 60_000,
        timeoutMs: 60_000,
      },
    });
    for (let s = 0; s < 60; s++) {
      clock.advance(1_000);
      vi.advanceTimersByTime(1_000);
    }
    display.onEvent({
      type: "api",
      event: {
        type: "response",
        id: 1,
        class: "write",
        method: "PATCH",
        path,
        items: 3,
        status: "timeout",
        durationMs: 60_000,
        attempt: 1,
        waitedMs: 0,
      },
    });
    display.stop();
    expect(text).toBe(
      [
        `  ... PATCH ${path}: no answer yet after 10s (attempt 1 of 4); deadline in 50s`,
        `  ... PATCH ${path}: no answer after 60s (attempt 1 of 4)`,
        "",
      ].join("\n"),
    );
  });
});
