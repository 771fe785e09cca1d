/**
 * Currencies are never netted, converted or dropped (docs/plan.md, "Currencies"), over real
 * HTTP against the emulator: a currency switch under money spent is DOOH804, DOOH803 names
 * spend it cannot compare, the money table names the currency change, and the emulator keeps
 * spend in the currency it was spent in. Each figure with its hand calculation.
 *
 * The world: insertion order 1002 (advertiser 2 "Contoso Travel", 40,000.00 EUR), campaign
 * 5003 "Stations" active from Dec 1 to Jan 1 (31 days), 1,000,000 impressions at 10.00 EUR,
 * with a creative. The emulator's pace for id 5003 is 995 permille of linear
 * (src/emulator/delivery.ts), so on Dec 10 00:00 (9 days in) it has delivered
 * floor(9 / 31 x 1,000,000 x 0.995) = floor(288,870.97) = 288,870 impressions for
 * 288,870 x 10 / 1000 = 2,888.70 EUR.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createDspClient } from "../../src/api/client.js";
import { Endpoints } from "../../src/api/endpoints.js";
import { VirtualClock } from "../../src/model/clock.js";
import type { DesiredCampaign, InsertionOrderFields } from "../../src/model/desired.js";
import { Money } from "../../src/model/money.js";
import type { Campaign } from "../../src/model/wire.js";
import { createPlan } from "../../src/plan/planner.js";
import { readLiveState } from "../../src/plan/read.js";
import type { Plan } from "../../src/plan/types.js";
import { spendRows } from "../../src/render/format.js";
import { renderStatusText } from "../../src/render/status.js";
import { buildStatusReport } from "../../src/status/status.js";
import {
  desiredCampaign,
  desiredIo,
  desiredState,
  seedAccount,
  seedCampaignWith,
  seedCreativeWith,
} from "../helpers/builders.js";
import { PLAN_OPTIONS } from "../helpers/plans.js";
import { USER } from "../helpers/users.js";
import { type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

const DEC_10 = "2026-12-10T00:00:00Z";
const DAY = 24 * 3_600_000;
const eur = (amount: string) => Money.parse(`${amount} EUR`);
const usd = (amount: string) => Money.parse(`${amount} USD`);

let world: EmulatorWorld | undefined;
let clock: VirtualClock;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function start(budgetMoney: Money | null): Promise<void> {
  clock = new VirtualClock({ start: Date.parse(DEC_10) });
  const seed = seedAccount();
  seed.insertion_orders = (seed.insertion_orders ?? []).map((io) =>
    io.id === "1002" ? { ...io, budget_money: budgetMoney } : io,
  );
  seed.campaigns = [
    ...(seed.campaigns ?? []).filter((c) => c.id !== "5003"),
    seedCampaignWith({
      id: "5003",
      insertion_order_id: "1002",
      name: "Stations",
      active: true,
      budget_impressions: 1_000_000,
      cpm: eur("10"),
    }),
  ];
  seed.creatives = [
    ...(seed.creatives ?? []).filter((c) => c.id !== "9003"),
    seedCreativeWith({
      id: "9003",
      advertiser_id: "2",
      name: "Travel video",
      campaign_ids: ["5003"],
      insertion_order_ids: ["1002"],
    }),
  ];
  world = await emulatorWorld({ seed, clock, emulator: { rateLimits: "off" } });
}

function client() {
  if (!world) throw new Error("no emulator");
  return createDspClient({ apiOrigin: world.emulator.origin, environment: "production", credentials: USER });
}

async function planOf(
  campaigns: DesiredCampaign[],
  fields: InsertionOrderFields,
  allowed: string[] = [],
): Promise<Plan> {
  const d = desiredState([desiredIo("1002", { campaigns, fields })]);
  const c = client();
  try {
    const live = await readLiveState(c, d);
    return createPlan(d, live, { ...PLAN_OPTIONS, now: new Date(clock.now()).toISOString(), allowed });
  } finally {
    await c.close();
  }
}

async function stations(): Promise<NonNullable<Campaign["progress"]>> {
  const c = client();
  try {
    const [live] = await c.listCampaignsByInsertionOrder(["1002"], { includeProgress: true });
    if (!live?.progress) throw new Error("no progress on 5003");
    return live.progress;
  } finally {
    await c.close();
  }
}

const found = (plan: Plan, code: string) => plan.findings.filter((f) => f.code === code);

describe("currencies: never netted, converted or dropped", () => {
  it("refuses a currency switch under money spent (DOOH804), which DOOH802 cannot see", async () => {
    await start(eur("40000"));
    expect(await stations()).toEqual({ impressions_delivered: 288_870, spend: eur("2888.70") });
    // budget_money 40,000 EUR -> 1 USD and the cpm 10 EUR -> 12 USD: no USD is spent, so
    // DOOH802 (1 USD against 0 USD spent) has nothing to say; the 2,888.70 EUR are in no
    // budget at all. Two errors, nothing to apply.
    const plan = await planOf([desiredCampaign("Stations", { id: "5003", fields: { cpm: usd("12") } })], {
      budget_money: usd("1"),
    });
    expect(found(plan, "DOOH802")).toEqual([]);
    expect(found(plan, "DOOH804").map((f) => [f.severity, f.message])).toEqual([
      [
        "error",
        "changes the currency of budget_money of insertion order 1002, 40,000.00 EUR -> 1.00 USD, after its campaigns have spent 2,888.70 EUR: that spend stays in its currency and cannot count against a budget in USD; and once their cpm is in USD, the DSP reports only their spend in the earlier currency (G15, docs/assumptions.md#g15): what they spend in USD will not be visible to status or plan, and this budget cannot be checked against it: keep the currency, or pass --allow DOOH804 to apply anyway",
      ],
      [
        "error",
        'changes the currency of the cpm of campaign 5003 "Stations", 10.00 EUR -> 12.00 USD, after it has spent 2,888.70 EUR: that spend stays in EUR, the rest of its budget is bought in USD; from then on the DSP reports only its spend in EUR (G15, docs/assumptions.md#g15): what it spends in USD will not be visible to status or plan, and no budget_money in USD can be checked against it: keep the currency, or pass --allow DOOH804 to apply anyway',
      ],
    ]);
    expect(plan.requests).toEqual([]);
  });

  it("with --allow DOOH804: warns, names the spend DOOH803 cannot compare, and the table says currency EUR -> USD", async () => {
    await start(eur("20000"));
    const plan = await planOf(
      [desiredCampaign("Stations", { id: "5003", fields: { cpm: usd("12") } })],
      { budget_money: usd("21600") },
      ["DOOH804"],
    );
    expect(found(plan, "DOOH804").map((f) => f.severity)).toEqual(["warning", "warning"]);
    expect(found(plan, "DOOH804")[0]?.message).toMatch(/: allowed by --allow DOOH804$/);
    // After the plan 5003 can spend its 2,888.70 EUR (spent) and its 1,000,000 - 288,870 =
    // 711,130 undelivered impressions at 12 USD: 711,130 x 12 / 1000 = 8,533.56 USD, within
    // 21,600 USD; the EUR cannot be compared with a USD budget: DOOH803 says so.
    expect(found(plan, "DOOH803").map((f) => f.message)).toEqual([
      'insertion order 1002 "Spring travel": its campaigns can spend up to 8,533.56 USD (maximum spend of its campaigns, live and planned), within its budget_money 21,600.00 USD; they have spent or can spend 2,888.70 EUR as well, which cannot be compared with a budget in USD (never converted)',
    ]);
    // The money table. EUR before: 2,888.70 + 711,130 x 10 / 1000 (7,111.30) = 10,000.00;
    // after: the 2,888.70 spent only, -7,111.30 (-71.1%). USD: 0 -> 8,533.56 (new). The
    // budget row is a currency change, never "removed".
    expect(spendRows(plan)).toEqual([
      {
        advertiser: "Contoso Travel",
        before: "10,000.00 EUR",
        after: "2,888.70 EUR",
        change: "-7,111.30 EUR (-71.1%)",
        remaining: "0.00 EUR",
      },
      // 5003's own lines: its EUR moves as the row's (its only campaign), and its USD is new.
      {
        advertiser: 'campaign 5003 "Stations" of insertion order 1002',
        before: "10,000.00 EUR",
        after: "2,888.70 EUR",
        change: "-7,111.30 EUR (-71.1%)",
        remaining: "",
        campaign: true,
      },
      {
        advertiser: "Contoso Travel",
        before: "0.00 USD",
        after: "8,533.56 USD",
        change: "+8,533.56 USD (new)",
        remaining: "8,533.56 USD",
      },
      {
        advertiser: 'campaign 5003 "Stations" of insertion order 1002',
        before: "0.00 USD",
        after: "8,533.56 USD",
        change: "+8,533.56 USD (new)",
        remaining: "",
        campaign: true,
      },
      {
        advertiser: 'Contoso Travel: insertion order 1002 "Spring travel" budget_money',
        before: "20,000.00 EUR",
        after: "21,600.00 USD",
        change: "currency EUR -> USD",
        remaining: "",
      },
    ]);
  });

  it("keeps spend in the currency it was spent in after a cpm currency change (the emulator)", async () => {
    // Insertion order 1002 without budget_money: the DSP takes a cpm in any currency (G8).
    await start(null);
    const c = client();
    try {
      await c.send(Endpoints.patchCampaigns([{ id: "5003", cpm: usd("12") }]));
    } finally {
      await c.close();
    }
    // Right after the switch: 2,888.70 EUR, never relabelled 2,888.70 USD.
    expect(await stations()).toEqual({ impressions_delivered: 288_870, spend: eur("2888.70") });
    // The next plan keeps the EUR row: 2,888.70 EUR spent; USD: 711,130 x 12 / 1000 =
    // 8,533.56 USD left; never 2,888.70 + 8,533.56 = 11,422.26 "USD".
    const plan = await planOf([desiredCampaign("Stations", { id: "5003" })], {});
    expect(plan.summary.spend?.map((s) => [s.currency_code, Money.format(s.max_spend_after)])).toEqual([
      ["EUR", "2888.70 EUR"],
      ["USD", "8533.56 USD"],
    ]);
    // Ten days on, delivering at 12 USD: the EUR spent is still 2,888.70, not added to.
    clock.advance(10 * DAY);
    const later = await stations();
    expect(later.spend).toEqual(eur("2888.70"));
    expect(later.impressions_delivered).toBeGreaterThan(288_870);
  });

  it("prices one budget once: status shows the plan's maximum spend for the campaign and the insertion order", async () => {
    await start(eur("40000"));
    const c = client();
    let campaigns: Campaign[];
    let insertionOrders: Awaited<ReturnType<typeof c.getInsertionOrders>>;
    try {
      // Mid-flight the cpm goes from 10.00 to 12.00 EUR: the 288,870 delivered stay bought at
      // 2,888.70 EUR; the 711,130 left cost 711,130 x 12 / 1000 = 8,533.56 EUR: the maximum is
      // 2,888.70 + 8,533.56 = 11,422.26 EUR, not 1,000,000 x 12 / 1000 = 12,000.00 at today's cpm.
      await c.send(Endpoints.patchCampaigns([{ id: "5003", cpm: eur("12") }]));
      campaigns = await c.listCampaignsByInsertionOrder(["1002"], { includeProgress: true });
      insertionOrders = await c.getInsertionOrders(["1002"]);
    } finally {
      await c.close();
    }
    const status = buildStatusReport({
      campaigns,
      creatives: [],
      recorded: [],
      insertionOrders,
      now: clock.now(),
      thresholds: { behind_pct: 10, ended_short_pct: 5, grace_hours: 24 },
      scope: "declared",
    });
    expect(status.campaigns[0]?.spend).toMatchObject({ amount: "2888.70 EUR", budget: "11422.26 EUR" });
    expect(status.insertion_orders[0]).toMatchObject({
      spend: [{ amount: "2888.70 EUR", budget: "11422.26 EUR" }],
      budget_money: "40000.00 EUR",
    });
    // The plan's money table, the same function (src/plan/findings/spend.ts): the same 11,422.26 EUR.
    const plan = await planOf([desiredCampaign("Stations", { id: "5003" })], {});
    expect(plan.summary.spend?.map((r) => Money.format(r.max_spend_after))).toEqual(["11422.26 EUR"]);
  });

  describe("G15: spend the DSP does not report after an allowed switch is never shown as 0", () => {
    // 5003 switches from 10.00 EUR to 12.00 USD on Dec 10 (insertion order 1002 without
    // budget_money, so the DSP takes it, G8), then delivers at 12 USD for ten days. At Dec 20
    // 00:00 (19 of 31 days) it has delivered floor(19 / 31 x 1,000,000 x 0.995) =
    // floor(609,838.7) = 609,838: 320,968 since the switch, bought for 320,968 x 12 / 1000 =
    // 3,851.616 USD. progress.spend still says 2,888.70 EUR (G2: the first currency spent in);
    // the USD is nowhere in the answer. Left: 390,162 x 12 / 1000 = 4,681.944 USD.
    async function switched(): Promise<Campaign[]> {
      await start(null);
      const c = client();
      try {
        await c.send(Endpoints.patchCampaigns([{ id: "5003", cpm: usd("12") }]));
        clock.advance(10 * DAY);
        return await c.listCampaignsByInsertionOrder(["1002"], { includeProgress: true });
      } finally {
        await c.close();
      }
    }

    it("status names the currency whose spend is not reported, and shows no 0.00 USD spent", async () => {
      const campaigns = await switched();
      expect(campaigns[0]?.progress).toEqual({ impressions_delivered: 609_838, spend: eur("2888.70") });
      const status = buildStatusReport({
        campaigns,
        creatives: [],
        recorded: [],
        now: clock.now(),
        thresholds: { behind_pct: 10, ended_short_pct: 5, grace_hours: 24 },
        scope: "declared",
      });
      expect(status.campaigns[0]?.spend).toEqual({
        amount: "2888.70 EUR",
        budget: "4681.944 USD",
        maximum: ["4681.944 USD", "2888.70 EUR"],
        pct: null,
        not_reported: "USD",
      });
      expect(status.insertion_orders[0]?.spend).toEqual([
        { amount: null, budget: "4681.944 USD", not_reported: ["5003"] },
        { amount: "2888.70 EUR", budget: "2888.70 EUR" },
      ]);
      const text = renderStatusText(status, { colour: false });
      expect(text).toContain(
        "  spend        2,888.70 EUR reported; spend in USD not reported by the DSP; 4,681.94 USD left at the current cpm\n",
      );
      expect(text).toContain(
        "  spend        USD spend not reported for campaign 5003, of at least 4,681.94 USD, 2,888.70 EUR of 2,888.70 EUR\n",
      );
      expect(text).not.toMatch(/0\.00 USD/);
    });

    it("plan: DOOH802 says what it cannot check, DOOH803 and the money table leave no 0 spent", async () => {
      await switched();
      // A budget of 500 USD: the 3,851.616 USD bought since the switch are above it, but the
      // DSP does not say so: DOOH802 warns, naming 5003, rather than staying silent.
      const plan = await planOf([desiredCampaign("Stations", { id: "5003" })], { budget_money: usd("500") });
      expect(found(plan, "DOOH802").map((f) => [f.severity, f.message])).toEqual([
        [
          "warning",
          "sets budget_money of insertion order 1002 to 500.00 USD: what campaign 5003 has spent in USD since its cpm changed currency, which the DSP does not report (only the spend in the earlier currency; see docs/assumptions.md#g15), so it cannot be checked against this budget: make sure the budget covers it; 2,888.70 EUR spent in another currency cannot be compared with it (never converted)",
        ],
      ]);
      // 4,681.944 USD left to buy is already above 500 USD; the unreported USD is named, not counted.
      expect(found(plan, "DOOH803").map((f) => f.message)).toEqual([
        'insertion order 1002 "Spring travel": its campaigns can spend up to 4,681.94 USD (maximum spend of its campaigns, live and planned), more than its budget_money 500.00 USD by 4,181.94 USD; they have spent or can spend 2,888.70 EUR as well, which cannot be compared with a budget in USD (never converted); campaign 5003 has spent an amount in USD the DSP does not report (G15, docs/assumptions.md#g15), not counted, so the budget cannot be checked against it',
      ]);
      const usdRow = plan.summary.spend?.find((r) => r.currency_code === "USD");
      expect(usdRow).toMatchObject({ spend_not_reported: ["5003"] });
      expect(usdRow?.spent).toBeUndefined();
      expect(usdRow?.remaining).toBeUndefined();
      expect(spendRows(plan).filter((r) => r.before.endsWith("USD"))).toEqual([
        {
          advertiser: "Contoso Travel (USD spend of campaign 5003 not reported by the DSP: not counted)",
          before: "4,681.94 USD",
          after: "4,681.94 USD",
          change: "0.00 USD",
          remaining: "",
        },
      ]);
    });
  });
});
