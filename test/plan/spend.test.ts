/**
 * The money summary: maximum spend (budget_impressions x cpm / 1000) per advertiser and
 * currency before and after the plan, and what remains to spend given progress (G2).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createDspClient } from "../../src/api/client.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { VirtualClock } from "../../src/model/clock.js";
import { Money } from "../../src/model/money.js";
import { createPlan } from "../../src/plan/planner.js";
import { readLiveState } from "../../src/plan/read.js";
import type { SpendDelta } from "../../src/plan/types.js";
import { spendRows } from "../../src/render/format.js";
import { renderText } from "../../src/render/text.js";
import {
  desiredCampaign,
  desiredIo,
  desiredState,
  liveCampaign,
  liveIo,
  liveState,
  seedAccount,
} from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { PLAN_OPTIONS, plan } from "../helpers/plans.js";
import { USER } from "../helpers/users.js";
import { type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

const eur = (text: string) => Money.parse(`${text} EUR`);
const progress = (impressions: number, spend: Money) => ({ impressions_delivered: impressions, spend });

/** Amounts as text, to read the expectations at a glance. */
function shown(rows: readonly SpendDelta[] | undefined) {
  return (rows ?? []).map((r) => ({
    row: `${r.advertiser_name ?? r.advertiser_id} ${r.currency_code}`,
    before: Money.format(r.max_spend_before),
    after: Money.format(r.max_spend_after),
    change: Money.format(r.max_spend_change),
    ...(r.spent ? { spent: Money.format(r.spent) } : {}),
    ...(r.remaining ? { remaining: Money.format(r.remaining) } : {}),
    ...(r.without_progress ? { without_progress: r.without_progress } : {}),
  }));
}

describe("money summary", () => {
  it("prices a mid-flight cpm change on the undelivered impressions only", () => {
    const live = liveState({
      insertionOrders: [liveIo({ budget_money: null })],
      campaigns: [
        liveCampaign({
          id: "5002",
          in_flight: true,
          budget_impressions: 300_000,
          cpm: usd("8.775"),
          progress: progress(187_658, usd("1646.69895")), // 187,658 x 8.775 / 1000
        }),
      ],
    });
    const d = desiredState([
      desiredIo("1001", { campaigns: [desiredCampaign("Airports", { fields: { cpm: usd("87.75") } })] }),
    ]);
    expect(shown(plan(d, live).summary.spend)).toEqual([
      {
        row: "Northwind USD",
        // before = 1,646.69895 + (300,000 - 187,658) x 8.775 / 1000 = 1,646.69895 + 985.80105 = 2,632.50
        //        (= 300,000 x 8.775 / 1000: delivered at the same cpm)
        before: "2632.50 USD",
        // after = 1,646.69895 + 112,342 x 87.75 / 1000 = 1,646.69895 + 9,858.0105 = 11,504.70945
        after: "11504.70945 USD",
        // change = 11,504.70945 - 2,632.50 = 8,872.20945 (not 300,000 x 87.75 / 1000 - 2,632.50 = 23,692.50)
        change: "8872.20945 USD",
        spent: "1646.69895 USD",
        // remaining = 11,504.70945 - 1,646.69895 = 9,858.0105
        remaining: "9858.0105 USD",
      },
    ]);
  });

  it("sums per advertiser and currency, inactive campaigns included, with what is spent and what remains", () => {
    const live = liveState({
      insertionOrders: [liveIo(), liveIo({ id: "1002", advertiser_id: "2", budget_money: null })],
      advertisers: [{ id: "2", name: "Rail & Co" }],
      campaigns: [
        liveCampaign({ progress: progress(40_000, usd("480")) }), // 40,000 x 12.00 / 1000
        liveCampaign({ id: "5002", name: "Malls", active: false, progress: progress(0, usd("0")) }),
        liveCampaign({
          id: "5003",
          insertion_order_id: "1002",
          name: "Rail",
          cpm: eur("8.25"),
          budget_impressions: 20_000,
          progress: progress(5_000, eur("41.25")), // 5,000 x 8.25 / 1000
        }),
      ],
    });
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [desiredCampaign("Airports", { fields: { budget_impressions: 150_000 } })],
      }),
      desiredIo("1002", { campaigns: [desiredCampaign("Rail", { fields: { cpm: eur("7.5") } })] }),
    ]);
    expect(shown(plan(d, live).summary.spend)).toEqual([
      {
        row: "1 USD",
        // Airports before: 480 + (100,000 - 40,000) x 12 / 1000 = 480 + 720 = 1,200
        // Malls (inactive, a later apply can reactivate it): 0 + 100,000 x 12 / 1000 = 1,200
        // before = 1,200 + 1,200 = 2,400
        before: "2400.00 USD",
        // Airports after: 480 + (150,000 - 40,000) x 12 / 1000 = 480 + 1,320 = 1,800; + Malls 1,200 = 3,000
        after: "3000.00 USD",
        change: "600.00 USD",
        spent: "480.00 USD",
        // remaining = 3,000 - 480 = 2,520
        remaining: "2520.00 USD",
      },
      {
        row: "Rail & Co EUR",
        // before = 41.25 + (20,000 - 5,000) x 8.25 / 1000 = 41.25 + 123.75 = 165
        before: "165.00 EUR",
        // after = 41.25 + 15,000 x 7.5 / 1000 = 41.25 + 112.50 = 153.75
        after: "153.75 EUR",
        // change = 153.75 - 165 = -11.25
        change: "-11.25 EUR",
        spent: "41.25 EUR",
        // remaining = 153.75 - 41.25 = 112.50
        remaining: "112.50 EUR",
      },
    ]);
  });

  it("shows each changed campaign's maximum spend before -> after under its advertiser's row", () => {
    const live = liveState({
      insertionOrders: [liveIo(), liveIo({ id: "1002", advertiser_id: "2", budget_money: null })],
      advertisers: [
        { id: "1", name: "Northwind" },
        { id: "2", name: "Rail & Co" },
      ],
      campaigns: [
        liveCampaign({ progress: progress(40_000, usd("480")) }), // 40,000 x 12.00 / 1000
        liveCampaign({ id: "5002", name: "Malls", progress: progress(0, usd("0")) }),
        liveCampaign({
          id: "5003",
          insertion_order_id: "1002",
          name: "Rail",
          cpm: eur("8.25"),
          budget_impressions: 20_000,
          progress: progress(5_000, eur("41.25")), // 5,000 x 8.25 / 1000
        }),
      ],
    });
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [
          desiredCampaign("Airports", { fields: { budget_impressions: 150_000 } }),
          // A change that moves no money: no line of its own.
          desiredCampaign("Malls", { fields: { start_time: "2026-12-16T00:00:00Z" } }),
          desiredCampaign("Stations", {
            fields: {
              active: true,
              start_time: "2026-12-20T00:00:00Z",
              end_time: "2027-01-20T00:00:00Z",
              budget_impressions: 50_000,
              cpm: usd("9"),
            },
          }),
        ],
      }),
      desiredIo("1002", { campaigns: [desiredCampaign("Rail", { fields: { cpm: eur("7.5") } })] }),
    ]);
    const p = plan(d, live);
    // Airports: 480 + (100,000 - 40,000) x 12 / 1000 = 1,200 -> 480 + (150,000 - 40,000) x 12 / 1000
    //   = 480 + 1,320 = 1,800, +600 of 1,200 = +50.0%.
    // Stations (new): 0 -> 50,000 x 9 / 1000 = 450.
    // Rail: 41.25 + 15,000 x 8.25 / 1000 = 165 -> 41.25 + 15,000 x 7.5 / 1000 = 153.75, -11.25 / 165 = -6.8%.
    // Advertiser 1: 2,400 (Airports 1,200 + Malls 100,000 x 12 / 1000 = 1,200) -> 1,800 + 1,200 + 450 = 3,450.
    expect(spendRows(p).map((r) => [r.advertiser, r.before, r.after, r.change])).toEqual([
      ["Northwind", "2,400.00 USD", "3,450.00 USD", "+1,050.00 USD (+43.8%)"],
      [
        'campaign 5001 "Airports" of insertion order 1001',
        "1,200.00 USD",
        "1,800.00 USD",
        "+600.00 USD (+50.0%)",
      ],
      ['new campaign "Stations" of insertion order 1001', "0.00 USD", "450.00 USD", "+450.00 USD (new)"],
      ["Rail & Co", "165.00 EUR", "153.75 EUR", "-11.25 EUR (-6.8%)"],
      ['campaign 5003 "Rail" of insertion order 1002', "165.00 EUR", "153.75 EUR", "-11.25 EUR (-6.8%)"],
    ]);
    expect(renderText(p, { colour: false })).toContain(
      '    campaign 5001 "Airports" of insertion order 1001: 1,200.00 USD -> 1,800.00 USD, +600.00 USD (+50.0%)',
    );
  });

  it("counts a new campaign after the plan only, and a deactivated one still at its maximum", () => {
    const live = liveState({
      campaigns: [liveCampaign({ progress: progress(10_000, usd("120")) })], // 10,000 x 12 / 1000
    });
    const d = desiredState([
      desiredIo("1001", {
        unmanaged: "deactivate",
        campaigns: [
          desiredCampaign("Stations", {
            fields: {
              active: true,
              start_time: "2026-12-20T00:00:00Z",
              end_time: "2027-01-20T00:00:00Z",
              budget_impressions: 50_000,
              cpm: usd("9"),
            },
          }),
        ],
      }),
    ]);
    expect(shown(plan(d, live).summary.spend)).toEqual([
      {
        row: "Northwind USD",
        // Airports: 120 + (100,000 - 10,000) x 12 / 1000 = 120 + 1,080 = 1,200
        before: "1200.00 USD",
        // Airports deactivated, still 1,200; Stations new: 50,000 x 9 / 1000 = 450; 1,200 + 450 = 1,650
        after: "1650.00 USD",
        change: "450.00 USD",
        spent: "120.00 USD",
        // remaining = 1,650 - 120 = 1,530
        remaining: "1530.00 USD",
      },
    ]);
  });

  it("counts only what was spent once a flight has ended, and when the plan ends one now", () => {
    const live = liveState({
      campaigns: [
        liveCampaign({ in_flight: true, progress: progress(30_000, usd("360")) }), // 30,000 x 12 / 1000
        liveCampaign({
          id: "5002",
          name: "Done",
          start_time: "2026-09-01T00:00:00Z",
          end_time: "2026-10-01T00:00:00Z",
          progress: progress(50, usd("0.6")), // 50 x 12 / 1000, ended short
        }),
      ],
    });
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [desiredCampaign("Airports", { fields: { end_time: PLAN_OPTIONS.now } })],
      }),
    ]);
    expect(shown(plan(d, live).summary.spend)).toEqual([
      {
        row: "Northwind USD",
        // Airports: 360 + (100,000 - 30,000) x 12 / 1000 = 360 + 840 = 1,200; Done: 0.60 spent
        // before = 1,200 + 0.60 = 1,200.60
        before: "1200.60 USD",
        // after: Airports ends at now, so 360 spent; Done 0.60: 360.60
        after: "360.60 USD",
        change: "-840.00 USD",
        spent: "360.60 USD",
        remaining: "0.00 USD",
      },
    ]);
  });

  it("moves the undelivered budget between currency rows when a cpm changes currency; the spend stays", () => {
    const live = liveState({
      insertionOrders: [liveIo({ budget_money: null })],
      campaigns: [liveCampaign({ progress: progress(1_000, usd("12")) })], // 1,000 x 12 / 1000
    });
    const d = desiredState([
      desiredIo("1001", { campaigns: [desiredCampaign("Airports", { fields: { cpm: eur("10") } })] }),
    ]);
    expect(shown(plan(d, live).summary.spend)).toEqual([
      {
        row: "Northwind EUR",
        before: "0.00 EUR",
        // (100,000 - 1,000) x 10 / 1000 = 990
        after: "990.00 EUR",
        change: "990.00 EUR",
        spent: "0.00 EUR",
        remaining: "990.00 EUR",
      },
      {
        row: "Northwind USD",
        // 12 + 99,000 x 12 / 1000 = 12 + 1,188 = 1,200
        before: "1200.00 USD",
        // only the 12 spent stays in USD
        after: "12.00 USD",
        change: "-1188.00 USD",
        spent: "12.00 USD",
        remaining: "0.00 USD",
      },
    ]);
  });

  it("is exact to the nano, with no binary float anywhere", () => {
    const live = liveState({
      campaigns: [
        liveCampaign({ budget_impressions: 3, cpm: usd("0.1"), progress: progress(0, usd("0")) }),
        liveCampaign({ id: "5002", name: "B", budget_impressions: 7, cpm: usd("0.2"), active: false }),
        liveCampaign({
          id: "5003",
          name: "C",
          budget_impressions: 9_007_199_254_740_991,
          cpm: usd("12.345678901"),
        }),
      ],
    });
    const [row] = plan(desiredState([desiredIo("1001")]), live).summary.spend ?? [];
    // (3 x 0.1 + 7 x 0.2 + 9,007,199,254,740,991 x 12.345678901) / 1000 = ...778508530891, rounded once
    expect(row && Money.format(row.max_spend_before)).toBe("111199989796358.778508531 USD");
  });

  it("never counts undelivered impressions below zero when a campaign delivered past its budget", () => {
    const live = liveState({
      campaigns: [liveCampaign({ budget_impressions: 1_000, progress: progress(1_083, usd("13")) })],
    });
    const [row] = plan(desiredState([desiredIo("1001")]), live).summary.spend ?? [];
    // 13 + max(0, 1,000 - 1,083) x 12 / 1000 = 13 + 0 = 13: what it spent, nothing left
    expect(row && Money.format(row.max_spend_after)).toBe("13.00 USD");
    expect(row?.remaining && Money.format(row.remaining)).toBe("0.00 USD");
  });

  it("takes amounts whose nanos the wire omitted (G12)", () => {
    const bare = (units: string) => ({ currency_code: "USD", units }) as Money;
    const live = liveState({
      campaigns: [liveCampaign({ cpm: bare("12"), progress: progress(1_000, bare("12")) })],
    });
    const [row] = plan(desiredState([desiredIo("1001")]), live).summary.spend ?? [];
    // 12 + (100,000 - 1,000) x 12 / 1000 = 12 + 1,188 = 1,200; remaining 1,200 - 12 = 1,188
    expect(row?.remaining && Money.format(row.remaining)).toBe("1188.00 USD");
  });

  it("counts a campaign read without progress at its whole budget x cpm and names it, with no spent or remaining", () => {
    const live = liveState({
      campaigns: [
        liveCampaign(),
        liveCampaign({
          id: "5002",
          name: "Done",
          end_time: "2026-10-01T00:00:00Z",
          start_time: "2026-09-01T00:00:00Z",
        }),
      ],
    });
    expect(shown(plan(desiredState([desiredIo("1001")]), live).summary.spend)).toEqual([
      {
        row: "Northwind USD",
        // 100,000 x 12 / 1000 = 1,200 each, ended or not (nothing known delivered): 2,400
        before: "2400.00 USD",
        after: "2400.00 USD",
        change: "0.00 USD",
        without_progress: ["5001", "5002"],
      },
    ]);
  });

  it("lists an insertion order's budget_money change as its own row", () => {
    const live = liveState({ campaigns: [liveCampaign({ progress: progress(0, usd("0")) })] });
    const d = desiredState([desiredIo("1001", { fields: { budget_money: usd("250000") } })]);
    expect(plan(d, live).summary.budget_money).toEqual([
      {
        insertion_order_id: "1001",
        insertion_order_name: "Winter",
        contract_number: "PO-1",
        advertiser_id: "1",
        advertiser_name: "Northwind",
        budget_before: usd("25000"),
        budget_after: usd("250000"),
      },
    ]);
  });
});

describe("money summary against the emulator", () => {
  let world: EmulatorWorld | undefined;
  let emulator: RunningEmulator | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
    emulator = undefined;
  });

  it("subtracts what the delivering campaign has spent from its maximum", async () => {
    const clock = new VirtualClock({ start: Date.parse("2026-12-10T00:00:00Z") });
    world = await emulatorWorld({ seed: seedAccount(), clock, emulator: { rateLimits: "off" } });
    emulator = world.emulator;
    const c = createDspClient({ apiOrigin: emulator.origin, environment: "production", credentials: USER });
    const d = desiredState([desiredIo("1001", { campaigns: [desiredCampaign("Airports", { id: "5001" })] })]);
    const live = await readLiveState(c, d);
    await c.close();
    const spent = live.campaigns.find((x) => x.id === "5001")?.progress?.spend;
    expect(spent && Money.toNanos(spent)).toBeGreaterThan(0n);
    const p = createPlan(d, live, { ...PLAN_OPTIONS, now: new Date(clock.now()).toISOString() });
    // 5001 delivers at its cpm: spent + (300,000 - delivered) x 12.50 / 1000 = 300,000 x 12.50 / 1000
    // = 3,750; 5002 (inactive, nothing delivered): 200,000 x 12.50 / 1000 = 2,500; both of
    // advertiser 1 (named: the plan reads the advertisers of its insertion orders), 3,750 + 2,500 = 6,250.
    expect(shown(p.summary.spend)).toEqual([
      {
        row: "Northwind Beverages USD",
        before: "6250.00 USD",
        after: "6250.00 USD",
        change: "0.00 USD",
        spent: Money.format(Money.fromWire(spent!)),
        // 6,250 - what 5001 spent
        remaining: Money.format(Money.subtract(usd("6250"), Money.fromWire(spent!))),
      },
    ]);
  });
});
