/**
 * No lost update (ARCHITECTURE.md#apply-order-and-invariants; src/apply/guard.ts): a colleague's
 * edit made through the API after the plan, while the apply runs, stops the apply right
 * before the request that would overwrite it, naming the object and the field, and nothing
 * of that request is written. The edit lands between request 1's answer and request 2: the
 * apply's client hands back request 1's answer only once the other client's edit is done.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Endpoints } from "../../src/api/endpoints.js";
import type { DspClient } from "../../src/api/types.js";
import { applyPlan } from "../../src/apply/execute.js";
import { Money } from "../../src/model/money.js";
import { Targeting } from "../../src/model/targeting.js";
import {
  desiredCampaign,
  desiredIo,
  desiredState,
  PUBLISHERS,
  seedCampaign,
  seedIo,
  VENUES_A,
  VENUES_B,
} from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { USER } from "../helpers/users.js";
import { colleagueClient, dspWrites, type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

let world: EmulatorWorld | undefined;
let colleague: DspClient | undefined;
afterEach(async () => {
  await colleague?.close();
  await world?.close();
  colleague = undefined;
  world = undefined;
});

/** The apply's client, which lets `edit` run after the answer to its first write. */
function editAfterFirstWrite(client: DspClient, edit: () => Promise<unknown>): DspClient {
  let first = true;
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === "send") {
        return async (...args: Parameters<DspClient["send"]>) => {
          const answer = await target.send(...args);
          if (first && args[0].method !== "GET") {
            first = false;
            await edit();
          }
          return answer;
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function otherClient(w: EmulatorWorld): DspClient {
  return colleagueClient(w.emulator.origin, USER, w.clock);
}

const answeredWrites = (w: EmulatorWorld) => dspWrites(w.emulator).filter((e) => e.status < 300);

describe("a change made through the API while apply runs", () => {
  it("stops the apply before the campaign PATCH that would undo it, naming campaign and field", async () => {
    world = await emulatorWorld({
      seed: {
        insertion_orders: [seedIo("1001")],
        campaigns: [seedCampaign("5001", "1001", "Malls")],
      },
    });
    // Request 1 changes the insertion order, request 2 the campaign's budget.
    const desired = desiredState([
      desiredIo("1001", {
        campaigns: [desiredCampaign("Malls", { fields: { budget_impressions: 150_000 }, line: "next" })],
        fields: {
          contract_number: "PO-9",
        },
        line: "next",
      }),
    ]);
    const plan = await world.plan(desired);
    expect(plan.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "PATCH /api/dsp/v1/insertion_orders",
      "PATCH /api/dsp/v1/campaigns",
    ]);
    const other = otherClient(world);
    colleague = other;
    const client = editAfterFirstWrite(world.client, () =>
      other.send(Endpoints.patchCampaigns([{ id: "5001", cpm: usd("14") }])),
    );
    const result = await applyPlan({ plan, client, clock: world.clock });

    expect(result.status).toBe("failed");
    expect(result.failure?.code).toBe("APPLY_CONCURRENT_CHANGE");
    expect(result.failure?.request.seq).toBe(2);
    expect(result.failure?.message).toMatch(/campaign 5001: cpm .*12.* -> .*14/);
    expect(result.failure?.message).toContain("this request was not sent");
    expect(result.not_sent).toEqual([]);
    // Only request 1 and the colleague's edit were written; the colleague's cpm stands.
    expect(answeredWrites(world).map((e) => `${e.method} ${e.path}`)).toEqual([
      "PATCH /api/dsp/v1/insertion_orders",
      "PATCH /api/dsp/v1/campaigns",
    ]);
    const campaign = world.emulator.state().campaigns[0]!;
    expect(Money.format(campaign.cpm)).toBe(Money.format(usd("14")));
    expect(campaign.budget_impressions).toBe(100_000);
  });

  it("stops the apply before a targeting PUT when the campaign's targetings were changed", async () => {
    world = await emulatorWorld({
      seed: {
        insertion_orders: [seedIo("1001")],
        campaigns: [seedCampaign("5001", "1001", "Malls"), seedCampaign("5002", "1001", "Stations")],
        targetings: { "5001": [VENUES_A], "5002": [VENUES_A] },
      },
    });
    const desired = desiredState([
      desiredIo("1001", {
        campaigns: [
          desiredCampaign("Malls", { targetings: [VENUES_B], line: "next" }),
          desiredCampaign("Stations", { targetings: [VENUES_B], line: "next" }),
        ],
        line: "next",
      }),
    ]);
    const plan = await world.plan(desired);
    expect(plan.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "PUT /api/dsp/v1/campaigns/5001/targetings",
      "PUT /api/dsp/v1/campaigns/5002/targetings",
    ]);
    const other = otherClient(world);
    colleague = other;
    const client = editAfterFirstWrite(world.client, () =>
      other.send(Endpoints.putTargetings("5002", [VENUES_A, PUBLISHERS])),
    );
    const result = await applyPlan({ plan, client, clock: world.clock });

    expect(result.status).toBe("failed");
    expect(result.failure?.code).toBe("APPLY_CONCURRENT_CHANGE");
    expect(result.failure?.request.seq).toBe(2);
    expect(result.failure?.message).toMatch(/targetings .*5002/);
    const live = world.emulator.state().targetings["5002"] ?? [];
    expect(
      Targeting.listEquals(Targeting.normalizeList(live), Targeting.normalizeList([VENUES_A, PUBLISHERS])),
    ).toBe(true);
    expect(answeredWrites(world).filter((e) => e.path.endsWith("/5002/targetings"))).toHaveLength(1);
  });

  it("goes through when nothing it writes was changed by the other client", async () => {
    world = await emulatorWorld({
      seed: {
        insertion_orders: [seedIo("1001")],
        campaigns: [seedCampaign("5001", "1001", "Malls"), seedCampaign("5002", "1001", "Stations")],
      },
    });
    const desired = desiredState([
      desiredIo("1001", {
        campaigns: [desiredCampaign("Malls", { fields: { budget_impressions: 150_000 }, line: "next" })],
        fields: {
          contract_number: "PO-9",
        },
        line: "next",
      }),
    ]);
    const plan = await world.plan(desired);
    const other = otherClient(world);
    colleague = other;
    // The colleague edits a campaign this apply does not write.
    const client = editAfterFirstWrite(world.client, () =>
      other.send(Endpoints.patchCampaigns([{ id: "5002", cpm: usd("14") }])),
    );
    const result = await applyPlan({ plan, client, clock: world.clock });
    expect(result.status, result.failure?.message).toBe("applied");
    expect(world.emulator.state().campaigns.find((c) => c.id === "5001")?.budget_impressions).toBe(150_000);
  });
});

describe("a campaign reactivated by another apply after this one planned its targeting change", () => {
  it("sends no targeting PUT that removes a set from it: the apply stops, no 422, its targetings kept", async () => {
    // Inactive when planned (paused by the other apply), so the plan changes its targetings
    // without a pause; the other apply then reactivates it, as it does once it is done.
    world = await emulatorWorld({
      seed: {
        insertion_orders: [seedIo("1001")],
        campaigns: [seedCampaign("5001", "1001", "Malls", { active: false })],
        targetings: { "5001": [VENUES_A, PUBLISHERS] },
      },
    });
    const desired = desiredState([
      desiredIo("1001", {
        campaigns: [desiredCampaign("Malls", { targetings: [VENUES_A], line: "next" })],
        line: "next",
      }),
    ]);
    const plan = await world.plan(desired);
    expect(plan.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "PUT /api/dsp/v1/campaigns/5001/targetings",
    ]);
    colleague = otherClient(world);
    await colleague.send(Endpoints.patchCampaigns([{ id: "5001", active: true }]));
    const result = await applyPlan({ plan, client: world.client, clock: world.clock });

    expect(result.status).toBe("failed");
    expect(result.failure?.code).toBe("APPLY_CONCURRENT_CHANGE");
    expect(result.failure?.message).toMatch(/campaign 5001 "Malls" is active now.*was not sent/);
    expect(dspWrites(world.emulator).filter((e) => e.method === "PUT")).toEqual([]);
    const malls = world.emulator.state().campaigns.find((c) => c.id === "5001");
    expect(malls?.active).toBe(true);
    const live = world.emulator.state().targetings["5001"] ?? [];
    expect(
      Targeting.listEquals(Targeting.normalizeList(live), Targeting.normalizeList([VENUES_A, PUBLISHERS])),
    ).toBe(true);
  });
});
