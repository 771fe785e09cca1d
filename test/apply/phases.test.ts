/**
 * Each phase-ordering case of ARCHITECTURE.md#apply-order-and-invariants, applied on the
 * emulator over HTTP: the plan's order is kept, every write is accepted, and a new plan is
 * empty afterwards.
 */
import { afterEach, describe, expect, it } from "vitest";
import { applyPlan } from "../../src/apply/execute.js";
import type { EmulatorStateView } from "../../src/emulator/index.js";
import { Targeting } from "../../src/model/targeting.js";
import {
  desiredCampaign,
  desiredIo,
  desiredState,
  PUBLISHERS,
  seedCampaign,
  seedCreative,
  seedIo,
  VENUES_A,
  VENUES_B,
} from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

let world: EmulatorWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function applyAndConverge(w: EmulatorWorld, desired: ReturnType<typeof desiredState>) {
  const plan = await w.plan(desired);
  expect(plan.findings.filter((f) => f.severity === "error")).toEqual([]);
  const before = w.writes().length;
  const result = await applyPlan({ plan, client: w.client, clock: w.clock });
  expect(result.status).toBe("applied");
  expect(w.writes().length - before).toBe(plan.requests.length);
  const again = await w.plan(desired);
  expect(again.changes).toEqual([]);
  expect(again.requests).toEqual([]);
  return { plan, result };
}

describe("apply phases", () => {
  it("creates a campaign inactive, gives it targetings and creatives, and only then activates it", async () => {
    world = await emulatorWorld({
      seed: { insertion_orders: [seedIo("1001")], creatives: [seedCreative("9001")] },
    });
    const states: EmulatorStateView[] = [];
    world.emulator.onWrite((_entry, state) => states.push(state));
    const desired = desiredState([
      desiredIo("1001", {
        campaigns: [
          desiredCampaign("Airports", {
            fields: {
              active: true,
              start_time: "2026-12-01T00:00:00Z",
              end_time: "2027-01-01T00:00:00Z",
              budget_impressions: 50_000,
              cpm: usd("12.5"),
            },
            targetings: [VENUES_A],
            creatives: ["9001"],
            line: "next",
          }),
        ],
        line: "next",
      }),
    ]);
    const { plan, result } = await applyAndConverge(world, desired);
    expect(plan.requests.map((r) => [r.phase, r.method])).toEqual([
      [2, "POST"],
      [4, "PUT"],
      [5, "PATCH"],
      [6, "PATCH"],
    ]);
    const id = Object.values(result.created)[0]!;
    expect(result.applied[1]?.path).toBe(`/api/dsp/v1/campaigns/${id}/targetings`);
    // I2: never active before its targetings and creatives are in place.
    for (const state of states) {
      const campaign = state.campaigns.find((c) => c.id === id);
      if (!campaign?.active) continue;
      expect(Targeting.listEquals(state.targetings[id] ?? [], [VENUES_A])).toBe(true);
      expect(state.creatives.find((c) => c.id === "9001")?.campaign_ids).toContain(id);
    }
    expect(states.at(-1)?.campaigns.find((c) => c.id === id)?.active).toBe(true);
  });

  it("deactivates an active campaign before removing its venue targeting and reactivates it in the next request", async () => {
    world = await emulatorWorld({
      seed: {
        insertion_orders: [seedIo("1001")],
        campaigns: [seedCampaign("5001", "1001", "Malls", { active: true })],
        targetings: { "5001": [VENUES_A, PUBLISHERS] },
      },
    });
    const states: EmulatorStateView[] = [];
    world.emulator.onWrite((_entry, state) => states.push(state));
    const desired = desiredState([
      desiredIo("1001", {
        campaigns: [
          desiredCampaign("Malls", {
            fields: { active: true },
            targetings: [VENUES_B, PUBLISHERS],
            line: "next",
          }),
        ],
        line: "next",
      }),
    ]);
    const { plan } = await applyAndConverge(world, desired);
    // Shortest pause (I5): pause, replace, reactivate, nothing in between.
    expect(plan.requests.map((r) => [r.phase, r.method, r.path])).toEqual([
      [3, "PATCH", "/api/dsp/v1/campaigns"],
      [4, "PUT", "/api/dsp/v1/campaigns/5001/targetings"],
      [6, "PATCH", "/api/dsp/v1/campaigns"],
    ]);
    // I1: whenever it was active, it held its targeting sets as they were, or the new ones.
    for (const state of states) {
      if (!state.campaigns.find((c) => c.id === "5001")?.active) continue;
      const sets = state.targetings["5001"] ?? [];
      const old = Targeting.listEquals(sets, [VENUES_A, PUBLISHERS]);
      const now = Targeting.listEquals(sets, [VENUES_B, PUBLISHERS]);
      expect(old || now).toBe(true);
    }
  });

  it("adds a targeting set to an active campaign without pausing it", async () => {
    world = await emulatorWorld({
      seed: {
        insertion_orders: [seedIo("1001")],
        campaigns: [seedCampaign("5001", "1001", "Malls", { active: true })],
        targetings: { "5001": [VENUES_A] },
      },
    });
    const desired = desiredState([
      desiredIo("1001", {
        campaigns: [desiredCampaign("Malls", { targetings: [VENUES_A, PUBLISHERS], line: "next" })],
        line: "next",
      }),
    ]);
    const { plan } = await applyAndConverge(world, desired);
    expect(plan.requests.map((r) => r.method)).toEqual(["PUT"]);
    expect(world.emulator.state().campaigns.find((c) => c.id === "5001")?.active).toBe(true);
  });

  it("widens the insertion order before moving a campaign's flight beyond its old end", async () => {
    world = await emulatorWorld({
      seed: {
        insertion_orders: [seedIo("1001")],
        campaigns: [seedCampaign("5001", "1001", "Malls")],
      },
    });
    const desired = desiredState([
      desiredIo("1001", {
        campaigns: [desiredCampaign("Malls", { fields: { end_time: "2027-04-01T00:00:00Z" }, line: "next" })],
        fields: {
          end_time: "2027-04-01T00:00:00Z",
        },
        line: "next",
      }),
    ]);
    const { plan } = await applyAndConverge(world, desired);
    expect(plan.requests.map((r) => [r.phase, r.path])).toEqual([
      [1, "/api/dsp/v1/insertion_orders"],
      [3, "/api/dsp/v1/campaigns"],
    ]);
  });

  it("narrows the insertion order only after its campaigns were narrowed", async () => {
    world = await emulatorWorld({
      seed: {
        insertion_orders: [seedIo("1001")],
        campaigns: [seedCampaign("5001", "1001", "Malls", { budget_impressions: 400_000 })],
      },
    });
    const desired = desiredState([
      desiredIo("1001", {
        campaigns: [
          desiredCampaign("Malls", {
            fields: { budget_impressions: 200_000, end_time: "2027-01-15T00:00:00Z" },
            line: "next",
          }),
        ],
        fields: {
          budget_impressions: 250_000,
          end_time: "2027-01-15T00:00:00Z",
        },
        line: "next",
      }),
    ]);
    const { plan } = await applyAndConverge(world, desired);
    expect(plan.requests.map((r) => [r.phase, r.path])).toEqual([
      [3, "/api/dsp/v1/campaigns"],
      [7, "/api/dsp/v1/insertion_orders"],
    ]);
  });

  it("moves budget between two campaigns of a full insertion order in one batch", async () => {
    world = await emulatorWorld({
      seed: {
        insertion_orders: [seedIo("1001", { budget_impressions: 300_000 })],
        campaigns: [
          seedCampaign("5001", "1001", "Malls", { budget_impressions: 200_000 }),
          seedCampaign("5002", "1001", "Airports", { budget_impressions: 100_000 }),
        ],
      },
    });
    const desired = desiredState([
      desiredIo("1001", {
        campaigns: [
          desiredCampaign("Malls", { fields: { budget_impressions: 100_000 }, line: "next" }),
          desiredCampaign("Airports", { fields: { budget_impressions: 200_000 }, line: "next" }),
        ],
        line: "next",
      }),
    ]);
    const { plan } = await applyAndConverge(world, desired);
    expect(plan.requests).toHaveLength(1);
    expect(plan.requests[0]?.items).toBe(2);
  });

  it("deactivates live campaigns the config does not list when unmanaged_campaigns is deactivate", async () => {
    world = await emulatorWorld({
      seed: {
        insertion_orders: [seedIo("1001")],
        campaigns: [
          seedCampaign("5001", "1001", "Malls", { active: true }),
          seedCampaign("5002", "1001", "Legacy", { active: true }),
        ],
      },
    });
    const desired = desiredState([
      desiredIo("1001", {
        campaigns: [desiredCampaign("Malls", { fields: { active: true }, line: "next" })],
        unmanaged: "deactivate",
        line: "next",
      }),
    ]);
    const { result } = await applyAndConverge(world, desired);
    expect(result.summary.actions).toEqual({ deactivate_campaign: 1 });
    const active = world.emulator.state().campaigns.map((c) => [c.id, c.active]);
    expect(active).toEqual([
      ["5001", true],
      ["5002", false],
    ]);
  });

  it("adds and removes creative associations without touching those of unmanaged campaigns", async () => {
    world = await emulatorWorld({
      seed: {
        insertion_orders: [seedIo("1001")],
        campaigns: [seedCampaign("5001", "1001", "Malls"), seedCampaign("5002", "1001", "Unmanaged")],
        creatives: [seedCreative("9001", ["5001", "5002"], ["1001"]), seedCreative("9002")],
      },
    });
    const desired = desiredState([
      desiredIo("1001", {
        campaigns: [desiredCampaign("Malls", { creatives: ["9002"], line: "next" })],
        line: "next",
      }),
    ]);
    const { plan } = await applyAndConverge(world, desired);
    expect(plan.requests.map((r) => [r.phase, r.items])).toEqual([[5, 2]]);
    const creatives = world.emulator.state().creatives.map((c) => [c.id, c.campaign_ids]);
    expect(creatives).toEqual([
      ["9001", ["5002"]],
      ["9002", ["5001"]],
    ]);
  });
});
