/**
 * The money summary: maximum spend (budget_impressions x cpm / 1000) per advertiser and
 * currency before and after the plan, and what remains to spend given progress (G2).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createDspClient } from "../../src/api/client.js";
import { type RunningEmulator, startEmulator } from "../../src/emulator/index.js";
import { VirtualClock } from "../../src/model/clock.js";
import { Money } from "../../src/model/money.js";
import { createPlan } from "../../src/plan/planner.js";
import { readLiveState } from "../../src/plan/read.js";
import type { SpendDelta } from "../../src/plan/types.js";
import { seed, USER } from "../emulator/helpers.js";
import {
  desiredCampaign,
  desiredIo,
  desiredState,
  liveCampaign,
  liveIo,
  liveState,
  usd,
} from "../helpers/builders.js";
import { PLAN_OPTIONS, plan } from "../helpers/plans.js";

const eur = (text: string) => Money.parse(`${text} EUR`);
const progress = (impressions: number, spend: Money) => ({ impressions_delivered: impressions, spend });

/** Amounts as text, to read the expectations at a glance. */
function shown(rows: readonly SpendDelta[] | undefined) {
  return (rows ?? []).map((r) => ({
    row: `${r.advertiser_id} ${r.currency_code}`,
    before: Money.format(r.max_spend_before),
    after: Money.format(r.max_spend_after),
    change: Money.format(r.max_spend_change),
    ...(r.remaining ? { remaining: Money.format(r.remaining) } : {}),
  }));
}

describe("money summary", () => {
  it("sums budget x cpm / 1000 per advertiser and currency, before and after, with what remains", () => {
    const live = liveState({
      insertionOrders: [liveIo(), liveIo({ id: "1002", advertiser_id: "2", budget_money: null })],
      campaigns: [
        liveCampaign({ progress: progress(40_000, usd("480")) }), // 100,000 x 12.00
        liveCampaign({ id: "5002", name: "Malls", active: false, progress: progress(0, usd("0")) }),
        liveCampaign({
          id: "5003",
          insertion_order_id: "1002",
          name: "Rail",
          cpm: eur("8.25"),
          budget_impressions: 20_000,
          progress: progress(5_000, eur("41.25")),
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
      // Malls (inactive) counts in the maximum but not in what remains to spend.
      {
        row: "1 USD",
        before: "2400.00 USD",
        after: "3000.00 USD",
        change: "600.00 USD",
        remaining: "1320.00 USD",
      },
      {
        row: "2 EUR",
        before: "165.00 EUR",
        after: "150.00 EUR",
        change: "-15.00 EUR",
        remaining: "108.75 EUR",
      },
    ]);
  });

  it("counts a new campaign after the plan only, and nothing for a deactivated one in what remains", () => {
    const live = liveState({
      campaigns: [liveCampaign({ progress: progress(10_000, usd("120")) })],
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
        row: "1 USD",
        before: "1200.00 USD",
        after: "1650.00 USD",
        change: "450.00 USD",
        remaining: "450.00 USD",
      },
    ]);
  });

  it("moves a campaign between currency rows when its cpm changes currency", () => {
    const live = liveState({
      insertionOrders: [liveIo({ budget_money: null })],
      campaigns: [liveCampaign({ progress: progress(0, usd("0")) })],
    });
    const d = desiredState([
      desiredIo("1001", { campaigns: [desiredCampaign("Airports", { fields: { cpm: eur("10") } })] }),
    ]);
    expect(shown(plan(d, live).summary.spend)).toEqual([
      {
        row: "1 EUR",
        before: "0.00 EUR",
        after: "1000.00 EUR",
        change: "1000.00 EUR",
        remaining: "1000.00 EUR",
      },
      {
        row: "1 USD",
        before: "1200.00 USD",
        after: "0.00 USD",
        change: "-1200.00 USD",
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

  it("never says less than nothing remains, and counts no campaign whose flight has ended", () => {
    const live = liveState({
      campaigns: [
        liveCampaign({ budget_impressions: 1_000, progress: progress(1_000, usd("13")) }), // spent over its max
        liveCampaign({
          id: "5002",
          name: "Done",
          end_time: "2026-10-01T00:00:00Z",
          start_time: "2026-09-01T00:00:00Z",
          progress: progress(50, usd("0.6")),
        }),
      ],
    });
    const [row] = plan(desiredState([desiredIo("1001")]), live).summary.spend ?? [];
    expect(row?.remaining && Money.format(row.remaining)).toBe("0.00 USD");
  });

  it("takes amounts whose nanos the wire omitted (G12)", () => {
    const bare = (units: string) => ({ currency_code: "USD", units }) as Money;
    const live = liveState({
      campaigns: [liveCampaign({ cpm: bare("12"), progress: progress(1_000, bare("12")) })],
    });
    const [row] = plan(desiredState([desiredIo("1001")]), live).summary.spend ?? [];
    expect(row?.remaining && Money.format(row.remaining)).toBe("1188.00 USD");
  });

  it("leaves out what remains when a campaign was read without progress", () => {
    const [row] =
      plan(desiredState([desiredIo("1001")]), liveState({ campaigns: [liveCampaign()] })).summary.spend ?? [];
    expect(row?.remaining).toBeUndefined();
    expect(row && Money.format(row.max_spend_after)).toBe("1200.00 USD");
  });
});

describe("money summary against the emulator", () => {
  let emulator: RunningEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it("subtracts what the delivering campaign has spent from its maximum", async () => {
    const clock = new VirtualClock({ start: Date.parse("2026-12-10T00:00:00Z") });
    emulator = await startEmulator({ port: 0, rateLimits: "off", clock, seed: seed() });
    const c = createDspClient({ apiOrigin: emulator.origin, environment: "production", credentials: USER });
    const d = desiredState([desiredIo("1001", { campaigns: [desiredCampaign("Airports", { id: "5001" })] })]);
    const live = await readLiveState(c, d);
    await c.close();
    const spent = live.campaigns.find((x) => x.id === "5001")?.progress?.spend;
    expect(spent && Money.toNanos(spent)).toBeGreaterThan(0n);
    const p = createPlan(d, live, { ...PLAN_OPTIONS, now: new Date(clock.now()).toISOString() });
    // 5001: 300,000 x 12.50; 5002: 200,000 x 12.50 (inactive), both of advertiser 1.
    expect(shown(p.summary.spend)).toEqual([
      {
        row: "1 USD",
        before: "6250.00 USD",
        after: "6250.00 USD",
        change: "0.00 USD",
        remaining: Money.format(Money.subtract(usd("3750"), Money.fromWire(spent!))),
      },
    ]);
  });
});
