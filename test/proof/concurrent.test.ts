import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Endpoints } from "../../src/api/endpoints.js";
import type { DspClient } from "../../src/api/types.js";
import { applyPlan } from "../../src/apply/execute.js";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { Money } from "../../src/model/money.js";
import {
  desiredCampaign,
  desiredIo,
  desiredState,
  seedCampaign,
  seedIo,
  VENUES_A,
} from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { usd } from "../helpers/money.js";
import { COLLEAGUE, USER } from "../helpers/users.js";
import { colleagueClient, dspWrites, type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

let world: EmulatorWorld | undefined;
let other: DspClient | undefined;
afterEach(async () => {
  await other?.close();
  await world?.close();
  other = undefined;
  world = undefined;
});

async function colleague(w: EmulatorWorld): Promise<DspClient> {
  const client = colleagueClient(w.emulator.origin, COLLEAGUE, w.clock);
  // Logged in before the apply starts, so the edit is one request when it is triggered.
  await client.getInsertionOrders(["1001"]);
  return client;
}

/** Runs `edit` once, right after the apply's first successful write reached the emulator. */
function afterFirstWrite(w: EmulatorWorld, edit: () => Promise<unknown>): Promise<unknown> {
  return new Promise((resolve) => {
    const off = w.emulator.onWrite((entry) => {
      if (entry.user !== USER.email) return;
      off();
      edit().then(resolve, resolve);
    });
  });
}

describe("another client edits during an apply", () => {
  it("finishes on the planned objects and keeps the fields the other client changed", async () => {
    world = await emulatorWorld({
      seed: {
        users: [USER, COLLEAGUE],
        insertion_orders: [seedIo("1001")],
        campaigns: [seedCampaign("5001", "1001", "Malls"), seedCampaign("5002", "1001", "Airports")],
      },
    });
    const desired = desiredState([
      desiredIo("1001", {
        campaigns: [
          desiredCampaign("Malls", { fields: { budget_impressions: 150_000 }, line: "next" }),
          desiredCampaign("Airports", { targetings: [VENUES_A], line: "next" }),
        ],
        fields: { contract_number: "PO-1" },
        line: "next",
      }),
    ]);
    const plan = await world.plan(desired);
    other = await colleague(world);
    const c = other;
    const edit = afterFirstWrite(world, () =>
      c
        .send(Endpoints.patchCampaigns([{ id: "5002", cpm: usd("20"), pacing: { strategy: "asap" } }]))
        .then((r) => r.campaigns),
    );
    const result = await applyPlan({ plan, client: world.client, clock: world.clock });
    expect(await edit).toHaveLength(1);

    expect(result.status).toBe("applied");
    const live = world.emulator.state();
    const airports = live.campaigns.find((c) => c.id === "5002")!;
    // The apply sent only what it planned: the colleague's cpm and pacing survive.
    expect(Money.format(airports.cpm)).toBe(Money.format(usd("20")));
    expect(airports.pacing).toEqual({ strategy: "asap" });
    expect(live.targetings["5002"]).toEqual([
      { venue_targeting_option: { venue_targeting_ids: ["101", "102"], exclude: false } },
    ]);
    expect(live.campaigns.find((c) => c.id === "5001")?.budget_impressions).toBe(150_000);
    expect((await world.plan(desired)).changes).toEqual([]);
  });

  it("when the edit and the plan cannot both hold, one is refused whole and the apply reports which", async () => {
    world = await emulatorWorld({
      seed: {
        users: [USER, COLLEAGUE],
        insertion_orders: [seedIo("1001", { budget_impressions: 400_000 })],
        campaigns: [
          seedCampaign("5001", "1001", "Malls", { budget_impressions: 100_000 }),
          seedCampaign("5002", "1001", "Airports", { budget_impressions: 100_000 }),
        ],
      },
    });
    const malls = desiredCampaign("Malls", { fields: { budget_impressions: 150_000 }, line: "next" });
    const desired = desiredState([
      desiredIo("1001", {
        campaigns: [malls, desiredCampaign("Airports", { line: "next" })],
        fields: { contract_number: "PO-1" },
        line: "next",
      }),
    ]);
    const plan = await world.plan(desired);
    expect(plan.requests.map((r) => r.phase)).toEqual([1, 3]);
    other = await colleague(world);
    const c = other;
    // +190,000 for Airports and +50,000 for Malls do not both fit in 400,000 (G8).
    const edit = afterFirstWrite(world, () =>
      c.send(Endpoints.patchCampaigns([{ id: "5002", budget_impressions: 290_000 }])),
    );
    const result = await applyPlan({ plan, client: world.client, clock: world.clock });
    const editOutcome = await edit;
    const live = world.emulator.state();
    const sum = live.campaigns.reduce((a, x) => a + x.budget_impressions, 0);
    expect(sum).toBeLessThanOrEqual(400_000);

    if (result.status === "applied") {
      // The apply got there first: the colleague's batch was refused whole.
      expect(editOutcome).toBeInstanceOf(Error);
      expect((editOutcome as { status?: number }).status).toBe(422);
      expect(live.campaigns.find((x) => x.id === "5001")?.budget_impressions).toBe(150_000);
    } else {
      // The edit got there first: the apply stops, says which field, where it was written.
      expect(result.status).toBe("failed");
      expect(result.failure?.http_status).toBe(422);
      const field = result.failure?.fields.find((f) => f.field.startsWith("campaigns[0]"));
      expect(field?.addresses).toEqual(["campaign.1001/Malls"]);
      expect(field?.sources[0]?.line).toBe(malls.fieldSources.budget_impressions?.line);
      expect(live.campaigns.find((x) => x.id === "5002")?.budget_impressions).toBe(290_000);
      expect(live.campaigns.find((x) => x.id === "5001")?.budget_impressions).toBe(100_000);
    }
  });
});

describe("a stale saved plan", () => {
  let emulator: RunningEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it("is refused with every changed object explained, and sends no write", async () => {
    const account = await startCliAccount({
      users: [USER, COLLEAGUE],
      campaigns: [seedCampaign("5001", "1001", "Malls"), seedCampaign("5002", "1001", "Airports")],
      configOrders: [
        '  - id: "1001"',
        "    campaigns:",
        "      - name: Malls",
        "        cpm: 14 USD",
        "      - name: Airports",
        "        targetings:",
        '          - venue_targeting_option: { venue_targeting_ids: ["101"] }',
      ],
      prefix: "doohctl-stale-",
    });
    emulator = account.emulator;
    const { dir, env } = account;
    const saved = bufferIO({ env, cwd: dir });
    expect(await run(["plan", "-o", "plan.json"], saved), saved.err()).toBe(0);

    const theirs = colleagueClient(emulator.origin, COLLEAGUE);
    other = theirs;
    await theirs.send(Endpoints.patchCampaigns([{ id: "5001", cpm: usd("16") }]));
    await theirs.send(
      Endpoints.putTargetings("5002", [{ publisher_targeting_option: { publisher_ids: ["9"] } }]),
    );
    const running = emulator;
    const writeCount = () => dspWrites(running).length;
    const writesBefore = writeCount();

    const io = bufferIO({ env, cwd: dir });
    // An absolute path: apply --plan resolves a relative one against process.cwd(), not io.cwd
    // (plan -o uses io.cwd); harmless for the real binary, reported to the lead.
    expect(await run(["apply", "--plan", join(dir, "plan.json"), "--auto-approve"], io)).toBe(1);
    expect(io.err()).toContain("plan is stale, nothing was applied");
    expect(io.err()).toMatch(/campaign 5001: cpm 12(\.00)? USD -> 16(\.00)? USD since the plan was made/);
    expect(io.err()).toMatch(/targetings of campaign 5002: changed since the plan was made/);
    expect(io.err()).toContain("Make a new plan.");
    expect(writeCount()).toBe(writesBefore);
    // The colleague's edits stand.
    expect(Money.format(emulator.state().campaigns.find((c) => c.id === "5001")!.cpm)).toBe(
      Money.format(usd("16")),
    );
    expect(emulator.state().targetings["5002"]).toEqual([
      { publisher_targeting_option: { publisher_ids: ["9"], exclude: false } },
    ]);
  });
});
