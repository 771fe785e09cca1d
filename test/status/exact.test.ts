/**
 * `doohctl status` at the exact edge of every threshold (docs/status.md, "Rounding"): a pace
 * exactly 10% off what is needed is on track, 10.0001% is beyond; an ended flight exactly 5%
 * short is no alert; the grace period ends exactly at its hours. Judged on exact rationals
 * (src/model/ratio.ts), never on binary floats; JSON carries the figure rounded once. Each case
 * with its hand calculation, at a frozen instant: the flights run Dec 1 .. Jan 2 (32 days) and
 * Dec 17 00:00 is 16 days in, 16 to go.
 */
import { describe, expect, it } from "vitest";
import { statusCommand } from "../../src/cli/commands/status.js";
import type { Campaign } from "../../src/model/wire.js";
import { renderStatusText } from "../../src/render/status.js";
import type { StatusInput } from "../../src/status/status.js";
import { seedCampaignWith, seedCreativeWith } from "../helpers/builders.js";
import { reportAt, THRESHOLDS, wire } from "./campaigns.js";
import { statusWorld } from "./world.js";

const DEC_17 = "2026-12-17T00:00:00Z";

const report = (campaigns: Campaign[], at = DEC_17, extra: Partial<StatusInput> = {}) =>
  reportAt(campaigns, at, extra);

const only = (r: ReturnType<typeof report>) => r.campaigns[0]!;

describe("status: exactly the threshold is within it", () => {
  it("calls exactly -10% on track: 207,000 of 437,000 with 16 of 32 days gone", () => {
    // Pace 207,000 / 16 = 12,937.5 a day; needed (437,000 - 207,000) / 16 = 230,000 / 16 =
    // 14,375 a day; 12,937.5 / 14,375 - 1 = -0.1 exactly: -10%, within ±10: on track.
    const r = report([wire({ id: "5001", budget_impressions: 437_000, delivered: 207_000 })]);
    expect(only(r).pacing).toEqual({
      verdict: "on track",
      pace_per_day: 12_937.5,
      required_per_day: 14_375,
      // 207,000 + 12,937.5 x 16 = 414,000, short of the 437,000.
      projected_impressions: 414_000,
      difference_pct: -10, // never -9.999999999999998
    });
    expect(only(r).alerts).toEqual([]);
    expect(r.summary.alerting).toBe(0);
    expect(renderStatusText(r, { colour: false })).toContain(
      "  pacing       on track (-10.0% against what the remaining budget needs)\n",
    );
    // A threshold just inside it makes the same figure behind.
    const strict = report([wire({ id: "5001", budget_impressions: 437_000, delivered: 207_000 })], DEC_17, {
      thresholds: { ...THRESHOLDS, behind_pct: 9.9999 },
    });
    expect(only(strict).pacing.verdict).toBe("behind");
    expect(only(strict).alerts.map((a) => a.message)).toEqual([
      "behind pace: -10.0% against what the remaining budget needs",
    ]);
  });

  it("calls exactly +10% on track, with no budget alert: 110,000 of 210,000", () => {
    // Pace 110,000 / 16 = 6,875 a day; needed 100,000 / 16 = 6,250; 6,875 / 6,250 - 1 = +0.1
    // exactly. At this pace the 100,000 left last 100,000 / 6,875 = 14.545 days, so the budget
    // runs out before the end (exhausted_at is shown), but on track raises no alert.
    const r = report([wire({ id: "5001", budget_impressions: 210_000, delivered: 110_000 })]);
    expect(only(r).pacing).toMatchObject({
      verdict: "on track",
      pace_per_day: 6_875,
      required_per_day: 6_250,
      difference_pct: 10,
      // Dec 17 + 14.545454... days = Dec 31 13:05:27.27: to the minute, 13:05.
      exhausted_at: "2026-12-31T13:05:00Z",
      // 16 - 100,000 / 6,875 = 16 - 160 / 11 = 16 / 11 = 1.4545454545... days.
      dark_days: 1.4545454545,
    });
    expect(only(r).alerts).toEqual([]);
  });

  it("calls 10.0001% beyond the threshold, and prints the digits that say so", () => {
    // 899,999 of 1,899,999: 899,999 / 16 against 1,000,000 / 16 needed: 0.899999 - 1 =
    // -10.0001% exactly: behind. 1,100,001 of 2,100,001: 1.100001 - 1 = +10.0001%: ahead.
    const behind = only(report([wire({ id: "5001", budget_impressions: 1_899_999, delivered: 899_999 })]));
    expect(behind.pacing).toMatchObject({ verdict: "behind", difference_pct: -10.0001 });
    expect(behind.alerts.map((a) => a.message)).toEqual([
      "behind pace: -10.0001% against what the remaining budget needs",
    ]);
    const ahead = only(report([wire({ id: "5001", budget_impressions: 2_100_001, delivered: 1_100_001 })]));
    expect(ahead.pacing).toMatchObject({ verdict: "ahead", difference_pct: 10.0001 });
    expect(ahead.alerts.map((a) => a.kind)).toEqual(["budget exhausted"]);
  });

  it("judges ended short and the grace period exactly at their thresholds", () => {
    // 95,000 of 100,000 by the end: 5,000 / 100,000 = 5% short exactly, not more than 5%: no
    // alert; 94,999 is 5.001% short: an alert that prints 5.001%, not 5.0%.
    const atFive = report([wire({ id: "5001", delivered: 95_000 })], "2027-01-03T00:00:00Z");
    expect(only(atFive).alerts).toEqual([]);
    const beyond = report([wire({ id: "5001", delivered: 94_999 })], "2027-01-03T00:00:00Z");
    expect(only(beyond).alerts.map((a) => a.message)).toEqual([
      "ended 5.001% short: 5,001 impressions (60.01 USD) not delivered",
    ]);
    // An active campaign that delivered nothing: exactly 24 h in is not more than the 24 h of
    // grace; one millisecond later it is.
    const nothing = [wire({ id: "5001", delivered: 0 })];
    expect(only(report(nothing, "2026-12-02T00:00:00Z")).alerts).toEqual([]);
    expect(only(report(nothing, "2026-12-02T00:00:00.001Z")).alerts.map((a) => a.kind)).toEqual([
      "nothing delivered",
    ]);
  });
});

describe("doohctl status: exactly ±10% exits 0 with the default threshold", () => {
  const world = statusWorld();

  it("exits 0 for campaigns exactly 10% behind and ahead, 2 once the threshold is 9.9999", async () => {
    // Two campaigns of the emulator (docs/emulator.md: pace fixed by id), Dec 1 .. Jan 2, seen
    // Dec 17 00:00, half way: 5474 runs at 948 permille of linear, so of 1,900 it has delivered
    // floor(1,900 x 0.948 / 2) = floor(900.6) = 900; 900 / 16 against 1,000 / 16 needed is
    // -10% exactly. 5033 runs at 1,048: of 2,100, floor(2,100 x 1.048 / 2) = floor(1,100.4) =
    // 1,100; 1,100 / 16 against 1,000 / 16 is +10% exactly.
    await world.start(DEC_17, (seed) => {
      const flight = { start_time: "2026-12-01T00:00:00Z", end_time: "2027-01-02T00:00:00Z", active: true };
      seed.campaigns = [
        seedCampaignWith({ id: "5474", name: "Exactly behind", budget_impressions: 1_900, ...flight }),
        seedCampaignWith({ id: "5033", name: "Exactly ahead", budget_impressions: 2_100, ...flight }),
      ];
      const approved = [
        { network_id: "1", status: "APPROVED" as const, message: "", last_reviewed: "2026-11-20T00:00:00Z" },
      ];
      seed.creatives = ["5474", "5033"].map((id) =>
        seedCreativeWith({
          id: `9${id}`,
          campaign_ids: [id],
          insertion_order_ids: ["1001"],
          audits: approved,
        }),
      );
    });
    const names = ["Exactly behind", "Exactly ahead"];
    const json = await world.status(names, { format: "json" });
    expect(json.code).toBe(0);
    const campaigns = JSON.parse(json.out).campaigns;
    expect(campaigns.map((c: Campaign & { pacing: object }) => [c.id, c.pacing])).toEqual([
      ["5474", expect.objectContaining({ verdict: "on track", difference_pct: -10 })],
      ["5033", expect.objectContaining({ verdict: "on track", difference_pct: 10 })],
    ]);
    const io = world.cli();
    const strict = { format: "text", behindThreshold: "9.9999", sessionCache: false };
    expect(await statusCommand(io, [world.config(names)], strict)).toBe(2);
    expect(io.out()).toContain("! behind pace: -10.0% against what the remaining budget needs");
  });
});
