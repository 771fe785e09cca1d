/**
 * The trading week's worst cases, end to end through the CLI against the emulator (docs/plan.md,
 * "Currencies" and "Money"; docs/status.md): a currency switch under EUR spend, a pace just over
 * the behind threshold, and one maximum spend that status and plan agree on. Each figure with
 * its hand calculation. The CLI and the emulator share one clock that stands at Dec 13 00:00
 * unless something sleeps (a VirtualClock that advances itself), so both see that one instant.
 *
 * The world (seedAccount, test/helpers/builders.ts): advertiser 1 (USD) with insertion order
 * 1001 and campaign 5001 "Airports", Dec 1 .. Jan 1 (31 days), 310,000 impressions at 12.50
 * USD, pace 936 permille of linear (src/emulator/delivery.ts); advertiser 2 (EUR) with insertion
 * order 1002 (40,000.00 EUR) and campaign 5003 "Stations", same flight, 1,000,000 impressions at
 * 10.00 EUR, pace 995 permille. On Dec 13 00:00, 12 of 31 days in:
 *   5001: floor(12 / 31 x 310,000 x 0.936) = floor(112,320) = 112,320 impressions,
 *         112,320 x 12.50 / 1000 = 1,404.00 USD spent;
 *   5003: floor(12 / 31 x 1,000,000 x 0.995) = floor(385,161.29) = 385,161 impressions,
 *         385,161 x 10 / 1000 = 3,851.61 EUR spent.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { VirtualClock } from "../../src/model/clock.js";
import { Money } from "../../src/model/money.js";
import { seedAccount, seedCampaignWith, seedCreativeWith } from "../helpers/builders.js";
import { accountConfig, type CliAccount, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";

const eur = (amount: string) => Money.parse(`${amount} EUR`);

const clock = new VirtualClock({ start: Date.parse("2026-12-13T00:00:00Z"), autoAdvance: true });
let account: CliAccount;
beforeAll(async () => {
  const seed = seedAccount();
  seed.insertion_orders = (seed.insertion_orders ?? []).map((io) =>
    io.id === "1002" ? { ...io, budget_money: eur("40000") } : io,
  );
  seed.campaigns = [
    seedCampaignWith({ id: "5001", active: true, name: "Airports", budget_impressions: 310_000 }),
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
    seedCreativeWith({ id: "9001", campaign_ids: ["5001"], insertion_order_ids: ["1001"] }),
    seedCreativeWith({
      id: "9003",
      advertiser_id: "2",
      name: "Travel video",
      campaign_ids: ["5003"],
      insertion_order_ids: ["1002"],
    }),
  ];
  account = await startCliAccount({ seed, emulator: { clock } });
});
afterAll(async () => {
  await account?.close();
});

/** `doohctl <args>` in the account's directory, with `orders` under `insertion_orders:`. */
async function cli(args: string[], orders: readonly string[]) {
  writeFileSync(join(account.dir, "doohctl.yaml"), accountConfig(account.emulator.origin, orders));
  const io = bufferIO({ env: account.env, cwd: account.dir, clock });
  const code = await run([...args, "doohctl.yaml"], io);
  return { code, out: io.out(), err: io.err() };
}

const STATIONS = ['  - id: "1002"', "    campaigns:", "      - name: Stations"];
const AIRPORTS = ['  - id: "1001"', "    campaigns:", "      - name: Airports"];

describe("the trading week's worst cases, through the CLI", () => {
  it("refuses a currency switch after EUR spend (DOOH804), names the EUR spent, writes nothing; the table says currency EUR -> USD", async () => {
    const before = JSON.stringify(account.emulator.state());
    const switched = [
      ...STATIONS.slice(0, 1),
      "    budget_money: 21600 USD",
      ...STATIONS.slice(1),
      "        cpm: 12 USD",
    ];
    const plan = await cli(["plan"], switched);
    expect(plan.code, plan.err).toBe(1);
    // The 3,851.61 EUR spent by 5003 (see the header) named in both errors.
    expect(plan.out).toContain(
      "  error DOOH804: changes the currency of budget_money of insertion order 1002, 40,000.00 EUR -> 21,600.00 USD, after its campaigns have spent 3,851.61 EUR:",
    );
    expect(plan.out).toContain(
      '  error DOOH804: changes the currency of the cpm of campaign 5003 "Stations", 10.00 EUR -> 12.00 USD, after it has spent 3,851.61 EUR:',
    );
    expect(plan.err).toContain("the plan has errors: nothing can be applied");
    // EUR before: 1,000,000 x 10 / 1000 = 10,000.00; after: the 3,851.61 spent only, -6,148.39
    // (-61.5%). USD: the 1,000,000 - 385,161 = 614,839 left at 12 USD = 614,839 x 12 / 1000 =
    // 7,378.068, shown 7,378.07 USD, new. The budget row is a currency change, never "removed".
    expect(plan.out).toContain(
      '    campaign 5003 "Stations" of insertion order 1002: 10,000.00 EUR -> 3,851.61 EUR, -6,148.39 EUR (-61.5%)\n',
    );
    expect(plan.out).toContain(
      "  Contoso Travel: 0.00 USD -> 7,378.07 USD, +7,378.07 USD (new); 7,378.07 USD left to spend\n",
    );
    expect(plan.out).toContain(
      '  Contoso Travel: insertion order 1002 "Spring travel" budget_money: 40,000.00 EUR -> 21,600.00 USD, currency EUR -> USD\n',
    );
    expect(plan.out).not.toMatch(/removed/);
    // Refused: the emulator is as it was, 1002 still 40,000.00 EUR and 5003 still 10.00 EUR.
    expect(JSON.stringify(account.emulator.state())).toBe(before);
  });

  it("calls a pace 10.04% short behind (one decimal would read 10.0, on track), computed exactly", async () => {
    const status = await cli(["status"], AIRPORTS);
    // 12 days in, 19 left: 112,320 / 12 = 9,360 a day; (310,000 - 112,320) / 19 = 197,680 / 19
    // = 10,404.21 a day needed; 9,360 / 10,404.21 - 1 = 177,840 / 197,680 - 1 = -10.036%:
    // beyond the 10% threshold, behind. Rounded to a tenth first it read -10.0, "on track".
    expect(status.out).toContain(
      "  forecast     9,360 a day (10,404 needed); 112,320 of 310,000 by the end\n",
    );
    expect(status.out).toContain("  pacing       behind (-10.04% against what the remaining budget needs)\n");
    expect(status.out).toContain("  ! behind pace: -10.04% against what the remaining budget needs\n");
    expect(status.out).not.toContain("on track");
    expect(status.code, status.err).toBe(2);
  });

  it("prices one budget once: status and plan print the same maximum spend after a mid-flight cpm change", async () => {
    const raised = [...AIRPORTS, "        cpm: 15 USD"];
    const apply = await cli(["apply", "--auto-approve"], raised);
    expect(apply.code, apply.err).toBe(0);
    const airports = account.emulator.state().campaigns.find((c) => c.id === "5001");
    expect(airports?.cpm).toEqual(Money.parse("15 USD"));
    // The 112,320 delivered stay bought at 12.50: 1,404.00 USD; the 310,000 - 112,320 = 197,680
    // left cost 197,680 x 15 / 1000 = 2,965.20 USD: 1,404.00 + 2,965.20 = 4,369.20 USD, not
    // 310,000 x 15 / 1000 = 4,650.00 at today's cpm. 4,369.20 - 1,404.00 = 2,965.20 left.
    const status = await cli(["status"], raised);
    expect(status.out).toContain("  spend        1,404.00 USD of 4,369.20 USD\n");
    const plan = await cli(["plan"], raised);
    expect(plan.code, plan.err).toBe(0);
    expect(plan.out).toContain(
      "  Northwind Beverages: 4,369.20 USD -> 4,369.20 USD, 0.00 USD; 2,965.20 USD left to spend\n",
    );
    expect(status.out).not.toContain("4,650.00");
    expect(plan.out).not.toContain("4,650.00");
  });
});
