/**
 * `doohctl status` forecasts and alerts from the one progress sample the DSP gives (G2), each
 * figure with its hand calculation (docs/status.md). Pure: the report is
 * built from wire campaigns at a fixed instant, no emulator needed.
 */
import { describe, expect, it } from "vitest";
import { Money } from "../../src/model/money.js";
import { renderStatusMarkdown, renderStatusText } from "../../src/render/status.js";
import { reportAt, THRESHOLDS, wire } from "./campaigns.js";

const report = reportAt;

function only(r: ReturnType<typeof report>) {
  const c = r.campaigns[0];
  if (!c) throw new Error("no campaign");
  return c;
}

describe("status: budget exhausted before the flight ends", () => {
  it("alerts for a budget delivered whole before the end, with the days left dark (finding 9: on track +5.1%)", () => {
    // Flight Dec 1 .. Jan 2 (32 days); the whole 100,000 delivered on Dec 28; seen on Dec 30.
    // A straight line said 100,000 against 100,000 x 29/32 = 90,625: "on track" or "ahead".
    // Nothing is left to deliver: dark from Dec 30 (at the latest) to Jan 2 = 3.0 days.
    const c = only(report([wire({ id: "5001", delivered: 100_000 })], "2026-12-30T00:00:00Z"));
    expect(c.pacing.verdict).toBe("budget delivered");
    expect(c.pacing.dark_days).toBe(3);
    expect(c.alerts).toEqual([
      {
        kind: "budget exhausted",
        message:
          "budget delivered before the flight ends: dark for the remaining 3.0 days to 2027-01-02T00:00:00Z",
      },
    ]);
  });

  it("forecasts the day the budget runs out and the dark days after it (1.7 days)", () => {
    // Flight Dec 1 .. Jan 2 (32 days), budget 101,000; on Dec 16 00:00 (15 days in), 50,000
    // delivered: a pace of 50,000 / 15 = 3,333.3 a day. The 51,000 left last 51,000 / 3,333.3
    // = 15.3 days: to Dec 31 07:12 (15 days 7.2 hours after Dec 16 00:00), day 30.3 of 32:
    // dark 32 - 30.3 = 1.7 days. It is ahead: 3,333.3 a day against 51,000 / 17 days = 3,000
    // needed: 3,333.3 / 3,000 - 1 = +11.1%.
    const c = only(
      report([wire({ id: "5001", budget_impressions: 101_000, delivered: 50_000 })], "2026-12-16T00:00:00Z"),
    );
    expect(c.pacing).toMatchObject({
      verdict: "ahead",
      // Exact in JSON (50,000 / 15 a day; 3,333.3... / 3,000 - 1 = 1/9); text rounds once.
      pace_per_day: expect.closeTo(50_000 / 15, 9),
      required_per_day: 3000,
      projected_impressions: 101_000,
      difference_pct: expect.closeTo(100 / 9, 9),
      exhausted_at: "2026-12-31T07:12:00Z",
      // Dec 31 07:12 is exhausted at 15.3 days after Dec 16; Jan 2 00:00 is 1.7 days later.
      dark_days: expect.closeTo(1.7, 9),
    });
    expect(c.alerts.map((a) => a.message)).toEqual([
      "budget runs out at this pace on 2026-12-31T07:12:00Z: dark for 1.7 days before the flight ends",
    ]);
  });

  it("does not forecast exhaustion for a pace that just reaches the end", () => {
    // 50,000 in 16 of 32 days: 3,125 a day; 50,000 left over 16 days needs 3,125: 0%.
    const c = only(report([wire({ id: "5001", delivered: 50_000 })], "2026-12-17T00:00:00Z"));
    expect(c.pacing).toMatchObject({
      verdict: "on track",
      difference_pct: 0,
      projected_impressions: 100_000,
    });
    expect(c.pacing.exhausted_at).toBeUndefined();
    expect(c.alerts).toEqual([]);
  });
});

describe("status: pace judged against the remaining budget over the remaining flight", () => {
  it("after a mid-flight raise, says what the new budget needs a day from now and where the pace ends", () => {
    // Flight Dec 1 .. Jan 2 (32 days); 62,500 delivered by Dec 21 (20 days) on the old 100,000
    // budget, now raised to 120,000. A straight line for the new budget expects 120,000 x 20 /
    // 32 = 75,000 by now (-16.7%). The forecast: 62,500 / 20 = 3,125 a day; 57,500 left over
    // 12 days needs 4,791.7 a day: 3,125 / 4,791.7 - 1 = -34.8%; at this pace it ends with
    // 62,500 + 3,125 x 12 = 100,000 of 120,000: the verdict and the figure a trader acts on.
    const c = only(
      report([wire({ id: "5001", budget_impressions: 120_000, delivered: 62_500 })], "2026-12-21T00:00:00Z"),
    );
    expect(c.pacing).toMatchObject({
      verdict: "behind",
      pace_per_day: 3125,
      required_per_day: expect.closeTo(57_500 / 12, 9),
      difference_pct: expect.closeTo((3125 / (57_500 / 12) - 1) * 100, 9),
      projected_impressions: 100_000,
    });
    expect(c.alerts.map((a) => a.kind)).toEqual(["behind"]);
    expect(
      renderStatusText(
        report(
          [wire({ id: "5001", budget_impressions: 120_000, delivered: 62_500 })],
          "2026-12-21T00:00:00Z",
        ),
        { colour: false },
      ),
    ).toContain("  forecast     3,125 a day (4,792 needed); 100,000 of 120,000 by the end\n");
  });

  it("waits for the grace period before judging a pace", () => {
    // 2 hours in, 100 delivered: 1,200 a day against ~3,130 needed, but too early to say.
    const c = only(report([wire({ id: "5001", delivered: 100 })], "2026-12-01T02:00:00Z"));
    expect(c.pacing.verdict).toBe("behind");
    expect(c.alerts).toEqual([]);
  });

  it("is on track late in a flight whose pace covers what is left", () => {
    // Flight Dec 1 .. Jan 2 (32 days); on Dec 25 (24 days in) 75,000 delivered: 3,125 a day;
    // 25,000 left over 8 days needs 3,125: 0%, on track.
    const c = only(report([wire({ id: "5001", delivered: 75_000 })], "2026-12-25T00:00:00Z"));
    expect(c.pacing).toMatchObject({ verdict: "on track", difference_pct: 0 });
  });
});

describe("status: ended short", () => {
  it("alerts within 7 days of the end for a flight more than 5% short, in the currency's minor units (finding 9)", () => {
    // Budget 600,000, delivered 518,196: 81,804 short = 81,804 / 600,000 = 13.634%, shown 13.6%.
    // At 12.00 USD cpm: 81,804 x 12 / 1000 = 981.648 USD, to the cent 981.65 USD.
    const short = wire({ id: "5001", budget_impressions: 600_000, delivered: 518_196 });
    const c = only(report([short], "2027-01-05T00:00:00Z"));
    expect(c.pacing.verdict).toBe("ended");
    expect(c.alerts).toEqual([
      { kind: "ended short", message: "ended 13.6% short: 81,804 impressions (981.65 USD) not delivered" },
    ]);
    // Jan 2 + 7 days = Jan 9 00:00: still an alert then; an hour later it is history.
    expect(only(report([short], "2027-01-09T00:00:00Z")).alerts).toHaveLength(1);
    expect(only(report([short], "2027-01-09T01:00:00Z")).alerts).toEqual([]);
  });

  it("rounds the amount not delivered half to even, and honours the threshold", () => {
    // 100 budgeted, 90 delivered: 10% short; 10 x 12.50 / 1000 = 0.125 USD: half to even is
    // 0.12 USD (half up would say 0.13).
    const c = only(
      report(
        [wire({ id: "5001", budget_impressions: 100, cpm: Money.parse("12.50 USD"), delivered: 90 })],
        "2027-01-03T00:00:00Z",
      ),
    );
    expect(c.alerts.map((a) => a.message)).toEqual([
      "ended 10.0% short: 10 impressions (0.12 USD) not delivered",
    ]);
    // 96,000 of 100,000 is 4% short: under the 5% default, over a 3% threshold.
    const near = [wire({ id: "5001", delivered: 96_000 })];
    expect(only(report(near, "2027-01-03T00:00:00Z")).alerts).toEqual([]);
    const strict = { thresholds: { ...THRESHOLDS, ended_short_pct: 3 } };
    expect(only(report(near, "2027-01-03T00:00:00Z", strict)).alerts.map((a) => a.kind)).toEqual([
      "ended short",
    ]);
  });
});

describe("status: in flight but not delivering", () => {
  it("alerts for a campaign never activated since its flight began, and tells it from a paused one (finding 9, 10)", () => {
    // Flight from Dec 26, seen Dec 30: 4.0 days in, more than 24 hours of grace.
    const never = wire({ id: "5001", start_time: "2026-12-26T00:00:00Z", active: false });
    const paused = wire({ id: "5002", start_time: "2026-12-26T00:00:00Z", active: false, delivered: 10_000 });
    const r = report([never, paused], "2026-12-30T00:00:00Z");
    const [n, p] = r.campaigns;
    expect(n?.pacing.verdict).toBe("never activated");
    expect(n?.alerts.map((a) => a.message)).toEqual([
      "never activated 4 days into its flight: activate it, or declare active: false if it is held back on purpose",
    ]);
    expect(p?.pacing.verdict).toBe("paused");
    expect(p?.alerts.map((a) => a.kind)).toEqual(["inactive"]);
    expect(renderStatusText(r, { colour: false })).toContain("  pacing       never activated\n");
  });

  it("does not alert for a campaign declared active: false, nor within the grace period", () => {
    const never = wire({ id: "5001", start_time: "2026-12-26T00:00:00Z", active: false });
    const declared = report([never], "2026-12-30T00:00:00Z", { declaredInactive: new Set(["5001"]) });
    expect(only(declared).alerts).toEqual([]);
    // 23 hours into the flight: within 24 hours of grace.
    expect(only(report([never], "2026-12-26T23:00:00Z")).alerts).toEqual([]);
    // 25 hours in: over it.
    expect(only(report([never], "2026-12-27T01:00:00Z")).alerts.map((a) => a.kind)).toEqual(["inactive"]);
    // A grace of 48 hours: 25 hours is within it.
    const patient = { thresholds: { ...THRESHOLDS, grace_hours: 48 } };
    expect(only(report([never], "2026-12-27T01:00:00Z", patient)).alerts).toEqual([]);
  });

  it("alerts for an active campaign that has delivered nothing past the grace period", () => {
    // Dec 1 to Dec 3 12:00: 2.5 days in, nothing delivered although a creative can serve.
    const c = only(report([wire({ id: "5001" })], "2026-12-03T12:00:00Z"));
    expect(c.alerts).toEqual([
      { kind: "nothing delivered", message: "nothing delivered 2.5 days into its flight" },
    ]);
  });
});

describe("status: insertion order rollup", () => {
  it("sums impressions, forecasts and spend per currency for each insertion order, in order first met", () => {
    // 1001: 5001 (50,000 of 100,000, 16 of 32 days: 100,000 by the end) + 5003 in EUR
    // (40,000 of 100,000: 80,000 by the end); 1002: 5002 (20,000 of 100,000: 40,000).
    // Spend at 12.00: 50,000 x 12 / 1000 = 600 USD of 1,200; 5003 at 10.00 EUR: 400 of 1,000 EUR.
    const r = report(
      [
        wire({ id: "5001", delivered: 50_000 }),
        wire({ id: "5002", insertion_order_id: "1002", delivered: 20_000 }),
        wire({
          id: "5003",
          cpm: Money.parse("10.00 EUR"),
          end_time: "2027-01-10T00:00:00Z",
          delivered: 40_000,
        }),
      ],
      "2026-12-17T00:00:00Z",
    );
    expect(r.insertion_orders).toEqual([
      {
        id: "1001",
        campaigns: 2,
        start_time: "2026-12-01T00:00:00Z",
        end_time: "2027-01-10T00:00:00Z",
        // 5003: 40,000 in 16 days = 2,500 a day, 24 days left: 40,000 + 60,000 = 100,000.
        impressions: { delivered: 90_000, budget: 200_000, projected: 200_000 },
        spend: [
          { amount: "600.00 USD", budget: "1200.00 USD" },
          { amount: "400.00 EUR", budget: "1000.00 EUR" },
        ],
        alerting: 0,
      },
      {
        id: "1002",
        campaigns: 1,
        start_time: "2026-12-01T00:00:00Z",
        end_time: "2027-01-02T00:00:00Z",
        impressions: { delivered: 20_000, budget: 100_000, projected: 40_000 },
        spend: [{ amount: "240.00 USD", budget: "1200.00 USD" }],
        // 5002: 1,250 a day against 80,000 / 16 = 5,000 needed: -75%, behind.
        alerting: 1,
      },
    ]);
    const text = renderStatusText(r, { colour: false });
    expect(text).toContain("  spend        600.00 USD of 1,200.00 USD, 400.00 EUR of 1,000.00 EUR");
  });
});

describe("status: amounts for people", () => {
  it("shows spend in the currency's minor units, half to even, where JSON keeps the exact value", () => {
    // 5 impressions at 12.50 USD cpm = 0.0625 USD exactly, to the cent 0.06 USD; 101 budgeted:
    // 1.2625 USD, to the cent 1.26 USD (a tie to the cent is in the ended-short test above).
    const r = report(
      [wire({ id: "5001", budget_impressions: 101, cpm: Money.parse("12.50 USD"), delivered: 5 })],
      "2026-12-16T00:00:00Z",
    );
    expect(only(r).spend).toMatchObject({ amount: "0.0625 USD", budget: "1.2625 USD" });
    expect(renderStatusText(r, { colour: false })).toContain(": 0.06 USD of 1.26 USD\n");
    expect(renderStatusMarkdown(r)).toContain("| 0.06 USD / 1.26 USD (");
  });
});
