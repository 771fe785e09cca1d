/**
 * `doohctl status` exit codes and alerts against the real emulator (test/status/world.ts):
 * what a scheduled job alerts on, and the flags that set the thresholds.
 */
import { describe, expect, it } from "vitest";
import { statusCommand } from "../../src/cli/commands/status.js";
import { statusWorld } from "./world.js";

const world = statusWorld();

describe("doohctl status exit codes", () => {
  it("exits 0 when every declared campaign is on pace and can serve", async () => {
    await world.start();
    const result = await world.status(["Trains", "Held back"]);
    expect(result.code).toBe(0);
  });

  it("exits 2 when a campaign is behind pace by more than --behind-threshold", async () => {
    await world.start();
    // 5001 is 12.0% short of what its remaining budget needs (see `account`).
    expect((await world.status(["Airports"], { behindThreshold: "11" })).code).toBe(2);
    expect((await world.status(["Airports"], { behindThreshold: "13" })).code).toBe(0);
  });

  it("exits 2 for a campaign in flight past the grace period that was never activated, unless declared active: false", async () => {
    await world.start();
    const io = world.cli();
    const code = await statusCommand(io, [world.config(["Held back"], { heldBack: false })], {
      format: "text",
      behindThreshold: "10",
      sessionCache: false,
    });
    expect(code).toBe(2);
    // Dec 1 00:00 to Dec 16 12:00 is 15.5 days, more than the 24 hours of grace.
    expect(io.out()).toContain("! never activated 15.5 days into its flight");
    expect((await world.status(["Held back"])).code).toBe(0);
    // 15.5 days is 372 hours: a grace of 400 hours is not over yet.
    const later = world.cli();
    const flags = { format: "text", behindThreshold: "10", graceHours: "400", sessionCache: false };
    expect(await statusCommand(later, [world.config(["Held back"], { heldBack: false })], flags)).toBe(0);
  });

  it("refuses an --ended-short-threshold or --grace-hours that is not a number, naming the flag", async () => {
    await world.start();
    const short = await world.status(["Trains"], { endedShortThreshold: "lots" });
    expect(short.code).toBe(1);
    expect(short.err).toContain(
      "--ended-short-threshold lots is not a percentage: give a number from 0 to 100",
    );
    const grace = await world.status(["Trains"], { graceHours: "1d" });
    expect(grace.code).toBe(1);
    expect(grace.err).toContain("--grace-hours 1d is not a number of hours: give e.g. --grace-hours 48");
  });

  it("exits 2 when an active campaign has no creative that can serve, even before its flight", async () => {
    await world.start();
    const result = await world.status(["New year"]);
    expect(result.code).toBe(2);
    expect(result.out).toContain('creative 9003 "Fireworks": processing failed');
    expect(result.out).toContain("! no creative can serve");
  });

  it("shows delivery growing with the clock, and ended flights as ended", async () => {
    await world.start("2026-12-02T00:00:00Z");
    const early = JSON.parse((await world.status(["Airports"], { format: "json" })).out);
    await world.start("2027-01-05T00:00:00Z");
    const late = JSON.parse((await world.status(["Airports"], { format: "json" })).out);
    expect(late.campaigns[0].impressions.delivered).toBeGreaterThan(early.campaigns[0].impressions.delivered);
    expect(late.campaigns[0].pacing.verdict).toBe("ended");
  });

  it("--all reports every live campaign of the declared insertion orders", async () => {
    await world.start();
    const report = JSON.parse((await world.status(["Airports"], { format: "json", all: true })).out);
    expect(report.scope).toBe("all");
    expect(report.campaigns.map((c: { id: string }) => c.id)).toEqual([
      "5001",
      "5002",
      "5003",
      "5004",
      "5005",
      "5008",
    ]);
  });
  it("refuses a --behind-threshold that is not a percentage, naming the flag and what to give", async () => {
    await world.start();
    const result = await world.status(["Airports"], { behindThreshold: "ten" });
    expect(result.code).toBe(1);
    expect(result.err).toContain("--behind-threshold ten is not a percentage: give a number from 0 to 100");
  });
});
