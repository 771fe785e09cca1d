/**
 * Phase 5 sends each creative's whole campaign_ids list. An association someone else adds
 * while the apply runs must not be undone by that list: the apply re-reads the creatives of
 * each batch first and stops, unsent, when they moved since the plan.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Endpoints } from "../../src/api/endpoints.js";
import type { DspClient } from "../../src/api/types.js";
import { applyPlan } from "../../src/apply/execute.js";
import {
  desiredCampaign,
  desiredIo,
  desiredState,
  seedCampaign,
  seedCreative,
  seedIo,
} from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { USER } from "../helpers/users.js";
import { colleagueClient, type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

let world: EmulatorWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("a creative edited by someone else during an apply", () => {
  it("stops before the creative batch instead of overwriting the other association", async () => {
    world = await emulatorWorld({
      seed: {
        insertion_orders: [seedIo("1001")],
        campaigns: [seedCampaign("5001", "1001", "Malls"), seedCampaign("5002", "1001", "Unmanaged")],
        creatives: [seedCreative("9001", ["5001"], ["1001"]), seedCreative("9002")],
      },
    });
    const desired = desiredState([
      desiredIo("1001", {
        campaigns: [
          desiredCampaign("Malls", { fields: { cpm: usd("14") }, creatives: ["9002"], line: "next" }),
        ],
        line: "next",
      }),
    ]);
    const plan = await world.plan(desired);
    expect(plan.requests.map((r) => r.phase)).toEqual([3, 5]);

    // A colleague, with a client of their own, associates 9001 with the unmanaged campaign
    // right after the apply's campaign batch went through.
    const colleague = colleagueClient(world.emulator.origin, USER, world.clock);
    const client: DspClient = Object.create(world.client);
    client.send = async (request, options) => {
      const answer = await world!.client.send(request, options);
      if (request.method === "PATCH" && request.path.endsWith("/campaigns")) {
        await colleague.send(Endpoints.patchCreatives([{ id: "9001", campaign_ids: ["5001", "5002"] }]));
      }
      return answer;
    };

    const result = await applyPlan({ plan, client });
    await colleague.close();

    expect(result.status).toBe("failed");
    expect(result.failure?.code).toBe("APPLY_CONCURRENT_CHANGE");
    expect(result.failure?.message).toMatch(/creative 9001: campaign_ids \["5001"\] -> \["5001","5002"\]/);
    expect(result.applied.map((r) => r.phase)).toEqual([3]);
    expect(result.not_sent).toEqual([]);
    // The colleague's association survives; nothing of phase 5 was written.
    const state = world.emulator.state();
    expect(state.creatives.find((c) => c.id === "9001")?.campaign_ids).toEqual(["5001", "5002"]);
    expect(state.creatives.find((c) => c.id === "9002")?.campaign_ids).toEqual([]);

    // A new plan takes the edit into account: it keeps 9001 on the unmanaged campaign.
    const again = await world.plan(desired);
    expect((await applyPlan({ plan: again, client: world.client })).status).toBe("applied");
    const after = world.emulator.state().creatives.map((c) => [c.id, c.campaign_ids]);
    expect(after).toEqual([
      ["9001", ["5002"]],
      ["9002", ["5001"]],
    ]);
  });
});
