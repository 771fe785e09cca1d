/**
 * I5 on the wire: campaigns paused for targeting changes are paused, retargeted and
 * reactivated a group at a time. Read from the emulator's request log (what the DSP saw),
 * not from the plan: no campaign stays paused across more write requests than its group
 * needs (its group's PUTs and the reactivation), and the apply costs no write more than
 * pausing in phase 3 and reactivating in phase 6 would.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { ApplyEvent } from "../../src/apply/events.js";
import { applyPlan } from "../../src/apply/execute.js";
import { PUBLISHED_RATE_LIMITS } from "../../src/model/limits.js";
import { Targeting } from "../../src/model/targeting.js";
import {
  desiredCampaign,
  desiredIo,
  desiredState,
  seedCampaign,
  seedIo,
  VENUES_A,
  VENUES_B,
} from "../helpers/builders.js";
import { dspWrites, type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

let world: EmulatorWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const COUNT = 150;

describe("grouped pauses, as the DSP sees them", () => {
  it("keeps each paused campaign dark only for its own group, at the minimum number of writes", async () => {
    const ids = Array.from({ length: COUNT }, (_, i) => String(5001 + i));
    world = await emulatorWorld({
      seed: {
        insertion_orders: [seedIo("1001")],
        campaigns: ids.map((id) =>
          seedCampaign(id, "1001", `C${id}`, { active: true, budget_impressions: 1_000 }),
        ),
        targetings: Object.fromEntries(ids.map((id) => [id, [VENUES_A]])),
      },
    });
    // Every campaign loses VENUES_A while active, `active` left out of the config: all pause.
    const desired = desiredState([
      desiredIo("1001", {
        campaigns: ids.map((id) => desiredCampaign(`C${id}`, { targetings: [VENUES_B], line: "next" })),
        line: "next",
      }),
    ]);
    const plan = await world.plan(desired);
    const result = await applyPlan({ plan, client: world.client, clock: world.clock });
    expect(result.status).toBe("applied");

    const writes = dspWrites(world.emulator).filter((e) => e.status === 200);
    // Pausing in phase 3 and reactivating in phase 6: 2 + 150 PUTs + 2.
    expect(writes).toHaveLength(2 * Math.ceil(COUNT / 100) + COUNT);
    const pausedAt = new Map<string, number>();
    const groupOf = new Map<number, number>();
    const dark = new Map<string, { from: number; to: number }>();
    writes.forEach((entry, index) => {
      if (entry.method !== "PATCH" || !entry.path.endsWith("/campaigns")) return;
      for (const item of (entry.body as { campaigns: { id: string; active?: boolean }[] }).campaigns) {
        if (item.active === false) {
          pausedAt.set(item.id, index);
          groupOf.set(index, (groupOf.get(index) ?? 0) + 1);
        }
        if (item.active === true) dark.set(item.id, { from: pausedAt.get(item.id)!, to: index });
      }
    });
    expect(dark.size).toBe(COUNT);
    expect(groupOf.size).toBeGreaterThan(1);
    for (const [id, { from, to }] of dark) {
      const group = groupOf.get(from)!;
      expect(to - from, `campaign ${id}, paused with ${group} others`).toBeLessThanOrEqual(group + 1);
      // Its own PUT went while it was paused (I1).
      const put = writes.findIndex((e) => e.method === "PUT" && e.path.includes(`/campaigns/${id}/`));
      expect(put).toBeGreaterThan(from);
      expect(put).toBeLessThan(to);
    }
    const state = world.emulator.state();
    expect(state.campaigns.every((c) => c.active)).toBe(true);
    expect(Targeting.normalizeList(state.targetings["5001"] ?? [])).toEqual(
      Targeting.normalizeList([VENUES_B]),
    );
  });
});

describe("restoring delivery after an interruption", () => {
  it("waits for a write slot with a countdown, then reactivates: the PUT never went, so I1 holds", async () => {
    // One write a minute: the pause takes the window, so the reactivation must wait for it.
    world = await emulatorWorld({
      seed: {
        insertion_orders: [seedIo("1001")],
        campaigns: [seedCampaign("5001", "1001", "Malls", { active: true })],
        targetings: { "5001": [VENUES_A] },
      },
      client: { rateLimits: { ...PUBLISHED_RATE_LIMITS, write: { limit: 1, windowMs: 60_000 } } },
    });
    const plan = await world.plan(
      desiredState([
        desiredIo("1001", {
          campaigns: [desiredCampaign("Malls", { targetings: [VENUES_B], line: "next" })],
          line: "next",
        }),
      ]),
    );
    const controller = new AbortController();
    const events: ApplyEvent[] = [];
    const w = world;
    const result = await applyPlan({
      plan,
      client: w.client,
      clock: w.clock,
      signal: controller.signal,
      onEvent: (event) => {
        events.push(event);
        if (event.type === "applied" && event.record.seq === 1) controller.abort(new Error("SIGINT"));
      },
    });
    expect(result.status).toBe("interrupted");
    expect(result.restored).toEqual(["5001"]);
    const restoring = events.findIndex(
      (e) => e.type === "check" && /reactivating 1 campaign/.test(e.message),
    );
    const waits = events.slice(restoring).filter((e) => e.type === "api" && e.event.type === "wait");
    expect(restoring).toBeGreaterThan(-1);
    expect(waits.length).toBeGreaterThan(0);
    const wait = waits[0]!;
    if (wait.type === "api" && wait.event.type === "wait") expect(wait.event.until).toBeGreaterThan(0);
    const state = w.emulator.state();
    expect(state.campaigns[0]?.active).toBe(true);
    expect(Targeting.normalizeList(state.targetings["5001"] ?? [])).toEqual(
      Targeting.normalizeList([VENUES_A]),
    );
  });
});
