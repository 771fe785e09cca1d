/**
 * Delivery-aware findings over real HTTP: the emulator delivers with its virtual clock, the
 * plan reads progress on its campaign list requests (G2) and judges changes by it.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDspClient } from "../../src/api/client.js";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { VirtualClock } from "../../src/model/clock.js";
import type { DesiredCampaign, InsertionOrderFields } from "../../src/model/desired.js";
import { Money } from "../../src/model/money.js";
import type { Campaign } from "../../src/model/wire.js";
import { createPlan } from "../../src/plan/planner.js";
import { readLiveState } from "../../src/plan/read.js";
import { checkProposal } from "../../src/plan/saved/proposal.js";
import type { Plan } from "../../src/plan/types.js";
import { desiredCampaign, desiredIo, desiredState, seedAccount } from "../helpers/builders.js";
import { bufferIO } from "../helpers/io.js";
import { usd } from "../helpers/money.js";
import { PLAN_OPTIONS } from "../helpers/plans.js";
import { USER } from "../helpers/users.js";
import { type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

const MID_DECEMBER = "2026-12-10T00:00:00Z";
const DAY = 24 * 3_600_000;

let world: EmulatorWorld | undefined;
let emulator: RunningEmulator | undefined;
let clock: VirtualClock;
afterEach(async () => {
  await world?.close();
  world = undefined;
  emulator = undefined;
});

async function start(at = MID_DECEMBER): Promise<void> {
  clock = new VirtualClock({ start: Date.parse(at) });
  world = await emulatorWorld({ seed: seedAccount(), clock, emulator: { rateLimits: "off" } });
  emulator = world.emulator;
}

function client() {
  if (!emulator) throw new Error("no emulator");
  return createDspClient({ apiOrigin: emulator.origin, environment: "production", credentials: USER });
}

/** Plans 1001 with the given campaigns (and insertion order fields) against the emulator, now. */
async function planOf(campaigns: DesiredCampaign[], fields: InsertionOrderFields = {}): Promise<Plan> {
  const d = desiredState([desiredIo("1001", { campaigns, fields })]);
  const c = client();
  try {
    const live = await readLiveState(c, d);
    return createPlan(d, live, { ...PLAN_OPTIONS, now: new Date(clock.now()).toISOString() });
  } finally {
    await c.close();
  }
}

/** Campaign 5001 ("Airports", active, in flight from Dec 1 with creative 9001) as the plan reads it. */
async function airports(): Promise<Campaign & { progress: NonNullable<Campaign["progress"]> }> {
  const c = client();
  try {
    const [live] = await c.listCampaignsByInsertionOrder(["1001"], { includeProgress: true });
    if (!live?.progress) throw new Error("no progress on 5001");
    expect(live.id).toBe("5001");
    return live as Campaign & { progress: NonNullable<Campaign["progress"]> };
  } finally {
    await c.close();
  }
}

const codes = (plan: Plan) => plan.findings.map((f) => f.code);

describe("delivery-aware findings", () => {
  it("reads progress on the campaign list requests it already makes, with no extra request", async () => {
    await start();
    const plan = await planOf([desiredCampaign("Airports", { id: "5001" })]);
    const gets = emulator!.requestLog().filter((e) => e.method === "GET" && e.path !== "/api/session");
    // insertion orders, campaigns, + ceil(1 advertiser / 100) = 1 naming it in the money table
    expect(plan.summary.read_requests).toBe(2 + 1);
    expect(gets.map((e) => `${e.path}?${decodeURIComponent(e.query)}`)).toEqual([
      expect.stringMatching(/\/insertion_orders\?/),
      expect.stringMatching(/\/campaigns\?.*include_progress=true/),
      expect.stringMatching(/\/advertisers\?/),
    ]);
  });

  it("refuses a campaign budget below the impressions it has already delivered (DOOH801)", async () => {
    await start();
    const { progress } = await airports();
    const delivered = progress.impressions_delivered;
    const plan = await planOf([
      desiredCampaign("Airports", { id: "5001", fields: { budget_impressions: delivered - 1 } }),
    ]);
    const error = plan.findings.find((f) => f.code === "DOOH801");
    expect(error?.severity).toBe("error");
    expect(error?.message).toContain(
      `below the ${delivered.toLocaleString("en-US")} impressions it has already delivered`,
    );
    expect(error?.source?.path).toBe("campaigns.Airports.budget_impressions");
    expect(plan.requests).toEqual([]);
  });

  it("accepts a campaign budget equal to the impressions delivered", async () => {
    await start();
    const delivered = (await airports()).progress.impressions_delivered;
    const plan = await planOf([
      desiredCampaign("Airports", { id: "5001", fields: { budget_impressions: delivered } }),
    ]);
    expect(codes(plan)).not.toContain("DOOH801");
    expect(plan.requests.length).toBe(1);
  });

  it("refuses an insertion order money budget below what its campaigns have spent (DOOH802)", async () => {
    await start();
    const spent = Money.fromWire((await airports()).progress.spend);
    expect(Money.compare(spent, Money.zero("USD"))).toBe(1);
    const justBelow = Money.subtract(spent, Money.parse("0.000000001 USD"));
    const plan = await planOf([], { budget_money: justBelow });
    const error = plan.findings.find((f) => f.code === "DOOH802");
    expect(error?.severity).toBe("error");
    // A budget one nano below the spend would read the same to the cent (1,019.025 USD spent
    // on the seeded clock, 81,522 x 12.50 / 1000, shows 1,019.02 half to even): both figures
    // are shown with every decimal so they differ.
    expect(error?.message).toContain(
      `to ${Money.formatGrouped(justBelow)}, below the ${Money.formatGrouped(spent)} its campaigns have already spent in USD: raise it to at least `,
    );
    expect(plan.requests).toEqual([]);

    const exact = await planOf([], { budget_money: spent });
    expect(codes(exact)).not.toContain("DOOH802");
  });

  it("counts no spend in another currency against the money budget, and refuses the switch (DOOH804)", async () => {
    await start();
    const spent = Money.fromWire((await airports()).progress.spend);
    const plan = await planOf([], { budget_money: Money.parse("0.01 EUR") });
    expect(codes(plan)).not.toContain("DOOH802");
    const error = plan.findings.find((f) => f.code === "DOOH804");
    expect(error?.severity).toBe("error");
    expect(error?.message).toContain(
      `after its campaigns have spent ${Money.formatAmount(spent)}: that spend stays in its currency and cannot count against a budget in EUR`,
    );
    expect(plan.requests).toEqual([]);
  });

  it("warns that moving an in-flight campaign's end before now stops delivery at apply (DOOH302)", async () => {
    await start();
    const plan = await planOf([
      desiredCampaign("Airports", { id: "5001", fields: { end_time: "2026-12-09T00:00:00Z" } }),
    ]);
    const warning = plan.findings.find((f) => f.code === "DOOH302");
    expect(warning?.severity).toBe("warning");
    expect(warning?.message).toMatch(
      /^ends the flight of campaign 5001 "Airports", in flight now: end_time 2026-12-09T00:00:00Z is not after now, so delivery stops at apply after [\d,]+ of 300,000 impressions$/,
    );
    // Ending it exactly now stops it too.
    const atNow = await planOf([
      desiredCampaign("Airports", { id: "5001", fields: { end_time: MID_DECEMBER } }),
    ]);
    expect(codes(atNow)).toContain("DOOH302");
  });

  it("does not warn for an end still ahead, nor for an inactive campaign whose flight has started", async () => {
    await start();
    const ahead = await planOf([
      desiredCampaign("Airports", { id: "5001", fields: { end_time: "2026-12-20T00:00:00Z" } }),
    ]);
    expect(codes(ahead)).not.toContain("DOOH302");
    const inactive = await planOf([
      desiredCampaign("Malls", { id: "5002", fields: { end_time: "2026-12-09T00:00:00Z" } }),
    ]);
    expect(codes(inactive)).not.toContain("DOOH302");
  });

  it("shows the share of the budget bought at the old price when the cpm changes mid-flight (DOOH303)", async () => {
    await start();
    const { progress } = await airports();
    const delivered = progress.impressions_delivered;
    const plan = await planOf([desiredCampaign("Airports", { id: "5001", fields: { cpm: usd("15") } })]);
    const warning = plan.findings.find((f) => f.code === "DOOH303");
    expect(warning?.severity).toBe("warning");
    const share = ((delivered / 300_000) * 100).toFixed(1);
    // The emulator delivers 5001 at its cpm: spend x 1000 / delivered = 12.50, the old cpm.
    expect(warning?.message).toBe(
      `changes the cpm of campaign 5001 "Airports" mid-flight, 12.50 USD -> 15.00 USD: ${share}% of its budget (${delivered.toLocaleString("en-US")} of 300,000 impressions) was bought for ${Money.formatAmount(Money.fromWire(progress.spend))} at the old cpm, 12.50 USD; the new cpm applies to the remaining ${(300_000 - delivered).toLocaleString("en-US")}`,
    );
  });

  it("says nothing of the cpm before the flight has delivered", async () => {
    await start("2026-11-20T00:00:00Z");
    const plan = await planOf([desiredCampaign("Airports", { id: "5001", fields: { cpm: usd("15") } })]);
    expect(codes(plan)).not.toContain("DOOH303");
  });

  it("keeps progress out of fingerprints: more delivery does not make a saved plan stale", async () => {
    await start();
    const desired = [desiredCampaign("Airports", { id: "5001", fields: { cpm: usd("15") } })];
    const plan = await planOf(desired);
    expect(JSON.stringify(plan.fingerprints)).not.toContain("impressions_delivered");
    const before = (await airports()).progress.impressions_delivered;
    clock.advance(DAY);
    expect((await airports()).progress.impressions_delivered).toBeGreaterThan(before);
    // As `apply --plan` checks a saved plan: made again from the same config, the live state now.
    expect(checkProposal(plan, await planOf(desired)).stale).toEqual([]);
  });

  it("makes `doohctl plan` exit 1 on a budget below delivery, naming the line; shows the money table first", async () => {
    await start();
    const dir = mkdtempSync(join(tmpdir(), "doohctl-delivery-"));
    const plan = async (field: string) => {
      const file = join(dir, "doohctl.yaml");
      writeFileSync(
        file,
        [
          "version: 1",
          "connection:",
          "  rate_limits: { get: 1000/60s, write: 1000/60s, session: 100/60s }",
          "insertion_orders:",
          '  - id: "1001"',
          "    campaigns:",
          "      - name: Airports",
          `        ${field}`,
          "",
        ].join("\n"),
      );
      const io = bufferIO({
        cwd: dir,
        env: {
          DOOHCTL_API_ORIGIN: emulator!.origin,
          DOOHCTL_EMAIL: USER.email,
          DOOHCTL_PASSWORD: USER.password,
          DOOHCTL_SESSION_CACHE: "off",
          DOOHCTL_STATE_DIR: join(dir, "state"),
          HOME: dir,
        },
      });
      const code = await run(["plan", file, "--format", "markdown"], io);
      expect(`${io.out()}${io.err()}`).not.toContain(USER.password);
      return { code, out: io.out(), err: io.err() };
    };
    try {
      const refused = await plan("budget_impressions: 1");
      expect(refused.code).toBe(1);
      expect(refused.err).toMatch(
        /error DOOH801: sets budget_impressions of campaign 5001 "Airports" to 1, below the [\d,]+ impressions it has already delivered: raise it to at least [\d,]+, or deactivate the campaign to stop it \(doohctl\.yaml:8:29\)/,
      );

      const repriced = await plan("cpm: 10 USD");
      expect(repriced.code).toBe(0);
      const out = repriced.out;
      // The cost diff is the first table. On the seeded clock 5001 (300,000 at 12.50) has
      // delivered 81,522 for 81,522 x 12.50 / 1000 = 1,019.025 USD; 5002 (200,000 at 12.50,
      // inactive) nothing. before = 300,000 x 12.50 / 1000 + 200,000 x 12.50 / 1000 = 6,250;
      // after = 1,019.025 + 218,478 x 10 / 1000 (= 2,184.78) + 2,500 = 5,703.805, shown
      // 5,703.80 (half-even); change -546.195 -> -546.20, -546.195 / 6,250 = -8.7%; left to
      // spend 5,703.805 - 1,019.025 = 4,684.78.
      expect(out.indexOf("| maximum spend |")).toBe(out.indexOf("|"));
      expect(out).toContain(
        "| Northwind Beverages | 6,250.00 USD | 5,703.80 USD | **-546.20 USD (-8.7%)** | 4,684.78 USD |",
      );
      expect(out).toMatch(
        /\| warning \| DOOH303 \| doohctl\.yaml:8 \| changes the cpm of campaign 5001 "Airports" mid-flight/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
