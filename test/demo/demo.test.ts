/**
 * `npm run demo` tells the whole story and checks each step. Here it runs with a wide write
 * window (nothing to wait for) and buffered output; `.ci/run` runs the real thing.
 */
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { DEMO_RATE_LIMITS, runDemo } from "../../scripts/demo.js";
import { PUBLISHED_RATE_LIMITS } from "../../src/model/limits.js";
import { bufferIO } from "../helpers/io.js";

const demoDirs = () => readdirSync(tmpdir()).filter((name) => name.startsWith("doohctl-demo-"));

describe("npm run demo", () => {
  it("tells the story in order, checks every exit code, and leaves no file behind", async () => {
    const before = demoDirs();
    const io = bufferIO();
    const fast = { ...PUBLISHED_RATE_LIMITS, write: { limit: 100, windowMs: 1_000 } };
    expect(
      await runDemo({ stdout: io.stdout, stderr: io.stderr, rateLimits: fast, noColour: true }),
      io.err(),
    ).toBe(0);
    const out = io.out();

    const headings = [...out.matchAll(/^== (\d+)\. /gm)].map((m) => Number(m[1]));
    expect(headings).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // validate 0, plan 0, apply 0, plan after apply 0, drift 2, markdown 0, status 2 (behind and
    // running out of budget), status with a looser threshold 2 (running out of budget).
    expect([...out.matchAll(/\(exit code (\d)\)/g)].map((m) => Number(m[1]))).toEqual([
      0, 0, 0, 0, 2, 0, 2, 2,
    ]);
    expect(out).toContain("write: 100/1s"); // the config's window, shown, matches the emulator's
    expect(out).toMatch(/cpm: 14\.00 USD -> 12\.50 USD/);
    expect(out).toContain("### doohctl plan: 1 campaign update");
    expect(out).toContain("pacing       behind (-15.6% against what the remaining budget needs)");
    expect(out).toContain(
      "! budget runs out at this pace on 2026-12-28T18:40:00Z: dark for 3.2 days before the flight ends",
    );
    expect(out).toContain("every step did what it should");
    expect(io.err()).toMatch(/\[7\/7\] phase 6 PATCH/); // apply's progress, on stderr

    expect(out + io.err()).not.toContain("demo-password");
    expect(demoDirs()).toEqual(before);
  });

  it("scales only the write window, so the published read and login limits still hold", () => {
    expect(DEMO_RATE_LIMITS.get).toEqual(PUBLISHED_RATE_LIMITS.get);
    expect(DEMO_RATE_LIMITS.session).toEqual(PUBLISHED_RATE_LIMITS.session);
    // Apply's seven writes must wait for the window at least twice, so progress is visible.
    expect(7 / DEMO_RATE_LIMITS.write.limit).toBeGreaterThan(2);
  });
});
