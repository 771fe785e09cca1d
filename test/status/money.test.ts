/**
 * `doohctl status` money and verdicts at the edges (docs/status.md, "Rounding", "Budget
 * alerts", "Spend"): thresholds judged on exact figures and printed rounded once, budget
 * alerts that agree with the pace verdict, the plan's maximum spend as the budget, and spend
 * kept in the currency it was spent in. Each figure with its hand calculation. Pure: wire
 * campaigns at a fixed instant.
 */
import { describe, expect, it } from "vitest";
import { Money } from "../../src/model/money.js";
import { renderStatusText } from "../../src/render/status.js";
import { buildStatusReport } from "../../src/status/status.js";
import { liveIo } from "../helpers/builders.js";
import { reportAt, servingCreatives, THRESHOLDS, wire } from "./campaigns.js";

const report = reportAt;

describe("status: thresholds judged on exact figures, printed rounded once", () => {
  it("calls a pace 10.03% short behind, and prints the digits that say so", () => {
    // Dec 17 00:00: 16 of 32 days gone, 16 left. 47,360 delivered: 2,960 a day; 52,640 left
    // need 3,290 a day: 2,960 / 3,290 - 1 = -10.0304%, beyond the 10% threshold: behind.
    // Rounded to a tenth first it read -10.0 and "on track".
    const r = report([wire({ id: "5001", delivered: 47_360 })], "2026-12-17T00:00:00Z");
    const c = r.campaigns[0]!;
    expect(c.pacing.verdict).toBe("behind");
    expect(c.pacing.difference_pct).toBeCloseTo((2960 / 3290 - 1) * 100, 9);
    expect(c.alerts.map((a) => a.message)).toEqual([
      "behind pace: -10.03% against what the remaining budget needs",
    ]);
    expect(renderStatusText(r, { colour: false })).toContain(
      "  pacing       behind (-10.03% against what the remaining budget needs)\n",
    );
  });

  it("rounds what is needed a day once: 9,995.458 is 9,995, not 9,995.5 then 9,996", () => {
    // Dec 9 00:00: 8 of 32 days gone, 24 left. Budget 319,891, 80,000 delivered: 10,000 a day;
    // 239,891 left / 24 days = 9,995.458333 a day. JSON keeps it; text rounds it once: 9,995.
    const r = report(
      [wire({ id: "5001", budget_impressions: 319_891, delivered: 80_000 })],
      "2026-12-09T00:00:00Z",
    );
    const c = r.campaigns[0]!;
    expect(c.pacing.required_per_day).toBeCloseTo(239_891 / 24, 9);
    expect(renderStatusText(r, { colour: false })).toContain("10,000 a day (9,995 needed)");
  });
});

describe("status: budget alerts agree with the verdict", () => {
  it("raises no budget alert for a campaign on track, though its pace ends a little early", () => {
    // Same campaign: 10,000 a day x 24 days = 240,000 > 239,891 left, so the budget runs out
    // 239,891 / 10,000 = 23.99 days from now; +0.045% (240,000 / 239,891 - 1) is within the
    // 10% band: on track, and no "runs out" alert (it used to alert).
    const r = report(
      [wire({ id: "5001", budget_impressions: 319_891, delivered: 80_000 })],
      "2026-12-09T00:00:00Z",
    );
    const c = r.campaigns[0]!;
    expect(c.pacing.verdict).toBe("on track");
    expect(c.pacing.exhausted_at).toBeDefined();
    expect(c.alerts).toEqual([]);
    expect(r.summary.budget_exhausted).toBe(0);
  });

  it("raises no budget alert within the grace period, then does when it is ahead", () => {
    // Dec 1 06:00, six hours in: 1,000 delivered is 4,000 a day; 99,000 left over 31.75 days
    // need 3,118.1 a day: +28.3%, ahead, and the budget would run out early. Inside the 24 h
    // grace period no alert (exit 0); on Dec 3 00:00 (48 h in) with 8,000 delivered, 4,000 a
    // day against 92,000 / 30 = 3,066.7 needed: +30.4%, ahead: the alert stands.
    const early = report([wire({ id: "5005", delivered: 1_000 })], "2026-12-01T06:00:00Z");
    expect(early.campaigns[0]!.pacing.verdict).toBe("ahead");
    expect(early.campaigns[0]!.alerts).toEqual([]);
    const later = report([wire({ id: "5005", delivered: 8_000 })], "2026-12-03T00:00:00Z");
    expect(later.campaigns[0]!.pacing.verdict).toBe("ahead");
    expect(later.campaigns[0]!.alerts.map((a) => a.kind)).toEqual(["budget exhausted"]);
  });
});

describe("status: one price for one budget", () => {
  it("prices the budget as the plan does: spent plus the undelivered impressions at the current cpm", () => {
    // 46,800 delivered at 12.50 USD: 46,800 x 12.50 / 1000 = 585.00 USD spent; the cpm is now
    // 15.00 USD: 585.00 + (100,000 - 46,800) x 15 / 1000 = 585.00 + 798.00 = 1,383.00 USD, not
    // 100,000 x 15 / 1000 = 1,500.00 at today's cpm. 585 / 1,383 = 42.3%.
    const r = report(
      [
        wire({
          id: "5001",
          cpm: Money.parse("15 USD"),
          spentAt: Money.parse("12.50 USD"),
          delivered: 46_800,
        }),
        // 5002: 20,000 at 12.00 USD = 240.00 spent + 80,000 x 12 / 1000 = 960.00: 1,200.00 USD.
        wire({ id: "5002", delivered: 20_000 }),
      ],
      "2026-12-17T00:00:00Z",
    );
    // 585 / 1,383 = 42.299349240780...%: rounded once, half to even, to 10 decimals in the
    // report (42.2993492408), 42.3 only where people read it.
    expect(r.campaigns[0]!.spend).toEqual({
      amount: "585.00 USD",
      budget: "1383.00 USD",
      maximum: ["1383.00 USD"],
      pct: 42.2993492408,
    });
    // Insertion order 1001: 585 + 240 = 825.00 spent of 1,383 + 1,200 = 2,583.00 USD.
    expect(r.insertion_orders[0]!.spend).toEqual([{ amount: "825.00 USD", budget: "2583.00 USD" }]);
  });

  it("keeps spend in the currency it was spent in after a cpm currency change, and never shows the other as 0", () => {
    // 896,000 of 1,000,000 delivered at 10.00 EUR: 8,960.00 EUR spent; the cpm is now 12.00
    // USD: the 104,000 left can cost 104,000 x 12 / 1000 = 1,248.00 USD. Never added, never
    // converted: 8,960.00 EUR and 1,248.00 USD, and no share of one in the other. What it spent
    // in USD since the switch the DSP does not report (G15): named, never "0.00 USD".
    const r = report(
      [
        wire({
          id: "5101",
          budget_impressions: 1_000_000,
          cpm: Money.parse("12 USD"),
          spentAt: Money.parse("10 EUR"),
          delivered: 896_000,
        }),
      ],
      "2026-12-17T00:00:00Z",
    );
    expect(r.campaigns[0]!.spend).toEqual({
      amount: "8960.00 EUR",
      budget: "1248.00 USD",
      maximum: ["1248.00 USD", "8960.00 EUR"],
      pct: null,
      not_reported: "USD",
    });
    expect(r.insertion_orders[0]!.spend).toEqual([
      { amount: null, budget: "1248.00 USD", not_reported: ["5101"] },
      { amount: "8960.00 EUR", budget: "8960.00 EUR" },
    ]);
    const text = renderStatusText(r, { colour: false });
    expect(text).toContain(
      "  spend        8,960.00 EUR reported; spend in USD not reported by the DSP; 1,248.00 USD left at the current cpm\n",
    );
    expect(text).toContain(
      "  spend        USD spend not reported for campaign 5101, of at least 1,248.00 USD, 8,960.00 EUR of 8,960.00 EUR\n",
    );
    expect(text).not.toContain("0.00 USD");
  });
});

describe("status: every amount in its currency's minor units", () => {
  it("writes JPY without decimals and KWD with three, in JSON as in text", () => {
    // 5001: 40,000 of 100,000 at 250 JPY: 40,000 x 250 / 1000 = 10,000 JPY spent; maximum
    // 10,000 + 60,000 x 250 / 1000 = 25,000 JPY. 5002 (insertion order 1002): 40,000 at
    // 1.250 KWD = 50 KWD spent; maximum 50 + 60,000 x 1.25 / 1000 = 125 KWD.
    const jpy = wire({ id: "5001", cpm: Money.parse("250 JPY"), delivered: 40_000 });
    const kwd = wire({
      id: "5002",
      insertion_order_id: "1002",
      cpm: Money.parse("1.25 KWD"),
      delivered: 40_000,
    });
    const r = buildStatusReport({
      campaigns: [jpy, kwd],
      creatives: servingCreatives(["5001", "5002"]),
      recorded: [],
      insertionOrders: [
        liveIo({ id: "1001", budget_money: Money.parse("5000000 JPY") }),
        liveIo({ id: "1002", budget_money: Money.parse("1000 KWD") }),
      ],
      now: Date.parse("2026-12-17T00:00:00Z"),
      thresholds: THRESHOLDS,
      scope: "declared",
    });
    expect(r.campaigns.map((c) => c.spend)).toEqual([
      { amount: "10000 JPY", budget: "25000 JPY", maximum: ["25000 JPY"], pct: 40 },
      { amount: "50.000 KWD", budget: "125.000 KWD", maximum: ["125.000 KWD"], pct: 40 },
    ]);
    expect(r.insertion_orders.map((io) => [io.budget_money, io.spend])).toEqual([
      ["5000000 JPY", [{ amount: "10000 JPY", budget: "25000 JPY" }]],
      ["1000.000 KWD", [{ amount: "50.000 KWD", budget: "125.000 KWD" }]],
    ]);
    const text = renderStatusText(r, { colour: false });
    expect(text).toContain("  budget_money 5,000,000 JPY\n");
    expect(text).toContain("  budget_money 1,000.000 KWD\n");
    expect(text).toContain("40%: 50.000 KWD of 125.000 KWD\n");
  });
});

describe("status: money left undelivered is never hidden", () => {
  it("shows what an ended flight did not deliver when it does not alert: declared inactive, or over 7 days ago", () => {
    // Budget 600,000, 518,196 delivered by the end (Jan 2): 81,804 short; at 12.00 USD cpm
    // 81,804 x 12 / 1000 = 981.648 USD, shown 981.65 USD. Declared active: false: no alert
    // (held back on purpose), but the money is still shown.
    const short = wire({ id: "5001", budget_impressions: 600_000, delivered: 518_196 });
    const held = buildStatusReport({
      campaigns: [short],
      creatives: servingCreatives(["5001"]),
      recorded: [],
      declaredInactive: new Set(["5001"]),
      now: Date.parse("2027-01-05T00:00:00Z"),
      thresholds: THRESHOLDS,
      scope: "declared",
    });
    expect(held.campaigns[0]!.alerts).toEqual([]);
    expect(held.campaigns[0]!.undelivered).toEqual({ impressions: 81_804, amount: "981.648 USD" });
    expect(renderStatusText(held, { colour: false })).toContain(
      "  undelivered  81,804 impressions (981.65 USD) not delivered\n",
    );
    // Jan 20, 18 days after the end: the alert is history, the 981.65 USD still not delivered.
    const old = report([short], "2027-01-20T00:00:00Z");
    expect(old.campaigns[0]!.alerts).toEqual([]);
    expect(renderStatusText(old, { colour: false })).toContain(
      "  undelivered  81,804 impressions (981.65 USD) not delivered\n",
    );
    // While the alert stands, its message says it once; no second line.
    const fresh = renderStatusText(report([short], "2027-01-05T00:00:00Z"), { colour: false });
    expect(fresh).toContain("! ended 13.6% short: 81,804 impressions (981.65 USD) not delivered");
    expect(fresh).not.toContain("  undelivered");
  });
});
