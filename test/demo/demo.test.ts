/**
 * `npm run demo` tells the whole story and checks each step. Here it runs with a wide write
 * window (nothing to wait for), buffered output and a clock set to a chosen day, on the day its
 * world is written for and years later; `.ci/run` runs the real thing, with the process clock
 * moved years ahead too.
 */
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { DEMO_RATE_LIMITS, runDemo } from "../../scripts/demo.js";
import { OffsetClock } from "../../src/model/clock.js";
import { PUBLISHED_RATE_LIMITS } from "../../src/model/limits.js";
import { bufferIO } from "../helpers/io.js";

const demoDirs = () => readdirSync(tmpdir()).filter((name) => name.startsWith("doohctl-demo-"));

describe("npm run demo", () => {
  const fast = { ...PUBLISHED_RATE_LIMITS, write: { limit: 100, windowMs: 1_000 } };
  async function demoAt(at: string) {
    const io = bufferIO();
    const clock = new OffsetClock({ start: Date.parse(at) });
    const code = await runDemo({
      stdout: io.stdout,
      stderr: io.stderr,
      rateLimits: fast,
      noColour: true,
      clock,
    });
    return { code, out: io.out(), err: io.err() };
  }

  it("tells the story in order, checks every exit code, and leaves no file behind", async () => {
    const before = demoDirs();
    // The day the demo world is written for (examples/emulator-seed.json's `today`): nothing moves.
    const { code, out, err } = await demoAt("2026-12-20T09:00:00Z");
    expect(code, err).toBe(0);

    const headings = [...out.matchAll(/^== (\d+)\. /gm)].map((m) => Number(m[1]));
    expect(headings).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // validate 0, plan 0, apply 0, plan after apply 0, drift 2, markdown 0, status 2 (behind and
    // running out of budget), status with a looser threshold 2 (running out of budget).
    expect([...out.matchAll(/\(exit code (\d)\)/g)].map((m) => Number(m[1]))).toEqual([
      0, 0, 0, 0, 2, 0, 2, 2,
    ]);
    expect(out).toContain("written for 2026-12-20 and placed at today, 2026-12-20");
    expect(out).toContain("moved 0 days");
    expect(out).toContain("write: 100/1s"); // the config's window, shown, matches the emulator's
    expect(out).toMatch(/cpm: 14\.00 USD -> 12\.50 USD/);
    expect(out).toContain("### doohctl plan: 1 campaign update");
    // Holiday airports, 19 days and 9 hours into its Dec 1 to Jan 1 flight at a pace of 93.6% of
    // linear (src/emulator/delivery.ts): it delivers 500,000 x 0.936 / 31 = 15,096.8 a day, so
    // 15,096.8 x 19.375 = 292,500 by now; the rest, 207,500, over the 11.625 days left needs
    // 17,849.5 a day: 15,096.8 / 17,849.5 - 1 = -15.4%.
    expect(out).toContain("pacing       behind (-15.4% against what the remaining budget needs)");
    // Holiday malls at 111.6% of linear delivers 300,000 x 1.116 / 31 = 10,800 a day: its budget
    // of 300,000 lasts 27.78 days from Dec 1, to Dec 28 18:40; its flight ends 3.22 days later.
    expect(out).toContain(
      "! budget runs out at this pace on 2026-12-28T18:40:00Z: dark for 3.2 days before the flight ends",
    );
    expect(out).toContain("every step did what it should");
    expect(err).toMatch(/\[7\/7\] phase 6 PATCH/); // apply's progress, on stderr

    expect(out + err).not.toContain("demo-password");
    expect(demoDirs()).toEqual(before);
  });

  it("tells the same story years later, its dates moved to the day it runs on", async () => {
    // 2029-06-30 is 923 days after 2026-12-20: every date moves 923 days, and 21:00 is 19 days
    // and 21 hours into the holiday flights.
    const { code, out, err } = await demoAt("2029-06-30T21:00:00Z");
    expect(code, err).toBe(0);
    expect([...out.matchAll(/\(exit code (\d)\)/g)].map((m) => Number(m[1]))).toEqual([
      0, 0, 0, 0, 2, 0, 2, 2,
    ]);
    expect(out).toContain("moved +923 days");
    expect(out).toContain("+ start_time: 2029-07-12T00:00:00Z"); // January clearance, Jan 1 + 923 days
    // 15,096.8 x 19.875 = 300,054 delivered; 199,946 left over 11.125 days needs 17,972.7 a day:
    // 15,096.8 / 17,972.7 - 1 = -16.0%.
    expect(out).toContain("pacing       behind (-16.0% against what the remaining budget needs)");
    // Dec 28 18:40 + 923 days: the same 27.78 days of budget from the flight's start.
    expect(out).toContain(
      "! budget runs out at this pace on 2029-07-08T18:40:00Z: dark for 3.2 days before the flight ends",
    );
  });

  it("scales only the write window, so the published read and login limits still hold", () => {
    expect(DEMO_RATE_LIMITS.get).toEqual(PUBLISHED_RATE_LIMITS.get);
    expect(DEMO_RATE_LIMITS.session).toEqual(PUBLISHED_RATE_LIMITS.session);
    // Apply's seven writes must wait for the window at least twice, so progress is visible.
    expect(7 / DEMO_RATE_LIMITS.write.limit).toBeGreaterThan(2);
  });
});
