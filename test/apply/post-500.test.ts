/**
 * G3: a POST /campaigns the DSP carried out but answered 500. A 5xx is an answer, so the
 * server is done with the request: the apply checks by name at once (no settle wait on the
 * virtual clock), finds the campaign, takes its id and goes on; it never sends the POST again
 * and never creates the campaign twice. A proxy in front of the emulator turns the emulator's
 * success into a 500 after the write happened.
 */
import { afterEach, describe, expect, it } from "vitest";
import { applyPlan } from "../../src/apply/execute.js";
import type { Clock } from "../../src/model/clock.js";
import { desiredCampaign, desiredIo, desiredState, seedIo, VENUES_A } from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { firstCampaignPostCarriedOutThen } from "../helpers/proxy.js";
import { type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

let world: EmulatorWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Forwards everything; the first POST /campaigns is carried out, and answered 500. */
async function behindApplyThen500(w: EmulatorWorld): Promise<{ world: EmulatorWorld; faked: () => number }> {
  let faked = 0;
  await w.client.close();
  const behind = await w.behind(
    firstCampaignPostCarriedOutThen((_req, res) => {
      faked++;
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: 500, message: "Internal Server Error" }));
    }),
  );
  return { world: behind, faked: () => faked };
}

describe("a POST /campaigns carried out but answered 500", () => {
  it("is checked by name at once, without the settle wait, and the apply finishes with one campaign", async () => {
    const started = await emulatorWorld({ seed: { insertion_orders: [seedIo("1001")] } });
    world = started;
    const { world: behind, faked } = await behindApplyThen500(started);
    world = behind;
    const desired = desiredState([
      desiredIo("1001", {
        campaigns: [
          desiredCampaign("Launch", {
            fields: {
              active: true,
              start_time: "2026-12-01T00:00:00Z",
              end_time: "2027-01-01T00:00:00Z",
              budget_impressions: 10_000,
              cpm: usd("10"),
            },
            targetings: [VENUES_A],
            line: "next",
          }),
        ],
        line: "next",
      }),
    ]);
    const plan = await behind.plan(desired);
    const settleMs = 60_000;
    const sleeps: number[] = [];
    const clock: Clock = {
      now: () => behind.clock.now(),
      sleep: (ms, signal) => {
        sleeps.push(ms);
        return behind.clock.sleep(ms, signal);
      },
    };
    const checks: string[] = [];
    const begin = behind.clock.now();
    const result = await applyPlan({
      plan,
      client: behind.client,
      clock,
      creationSettleMs: settleMs,
      onEvent: (event) => {
        if (event.type === "check") checks.push(event.message);
      },
    });

    expect(faked()).toBe(1);
    expect(result.status, result.failure?.message).toBe("applied");
    expect(result.applied[0]).toMatchObject({ method: "POST", recovered: "created" });
    expect(checks[0]).toMatch(/answered, so listing campaigns by name at once/);
    expect(sleeps.filter((ms) => ms >= settleMs)).toEqual([]);
    expect(behind.clock.now() - begin).toBeLessThan(settleMs);
    const launched = behind.emulator.state().campaigns.filter((c) => c.name === "Launch");
    expect(launched).toHaveLength(1);
    expect(launched[0]?.active).toBe(true);
    expect(result.created).toEqual({
      [plan.changes.find((c) => c.kind === "create_campaign")!.id]: launched[0]!.id,
    });
    // One POST reached the DSP: none was sent again.
    expect(
      behind.emulator.requestLog().filter((e) => e.method === "POST" && e.path.endsWith("/campaigns")),
    ).toHaveLength(1);
    expect((await behind.plan(desired)).changes).toEqual([]);
  });
});
