import { afterEach, describe, expect, it } from "vitest";
import { Endpoints } from "../../src/api/endpoints.js";
import { PUBLISHED_RATE_LIMITS } from "../../src/model/limits.js";
import { seedWithCampaigns } from "../helpers/builders.js";
import { type EmulatorWorld, emulatorWorld } from "../helpers/world.js";
import { CAMPAIGNS_PATH, maxInWindow } from "./harness.js";

let h: EmulatorWorld | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("pacing against the emulator's published windows (G10)", () => {
  it("sends 35 writes and 250 GETs with zero 429s, never more than the limit inside any 60 s window", async () => {
    h = await emulatorWorld({ seed: seedWithCampaigns(40), emulator: { rateLimits: PUBLISHED_RATE_LIMITS } });
    const { client, emulator, clock } = h;
    const start = clock.now();
    const writes = (async () => {
      for (let i = 0; i < 35; i++) {
        await client.send(
          Endpoints.patchCampaigns([{ id: String(5001 + (i % 40)), budget_impressions: 1000 + i }]),
        );
      }
    })();
    const reads = Promise.all(
      Array.from({ length: 250 }, (_, i) => client.send(Endpoints.getCampaign(String(5001 + (i % 40))))),
    );
    await Promise.all([writes, reads]);
    const elapsed = clock.now() - start;

    const log = emulator.requestLog();
    expect(log.filter((e) => e.status === 429)).toEqual([]);
    expect(client.stats().rateLimited).toBe(0);
    const timesOf = (methods: string[]) =>
      log
        .filter((e) => methods.includes(e.method) && e.path.startsWith("/api/dsp"))
        .map((e) => Date.parse(e.time));
    const getTimes = timesOf(["GET"]);
    const writeTimes = timesOf(["PATCH", "PUT", "POST"]);
    expect(getTimes).toHaveLength(250);
    expect(writeTimes).toHaveLength(35);
    expect(maxInWindow(getTimes, 60_000)).toBeLessThanOrEqual(100);
    expect(maxInWindow(writeTimes, 60_000)).toBeLessThanOrEqual(10);
    // The whole budget is used: 35 writes at 10 a minute need 3 full windows after the first.
    expect(elapsed).toBeGreaterThanOrEqual(180_000);
    expect(elapsed).toBeLessThan(185_000);
  });

  it("sends the next request at once while the window has room", async () => {
    h = await emulatorWorld({
      seed: seedWithCampaigns(3),
      autoAdvance: false,
      emulator: { rateLimits: PUBLISHED_RATE_LIMITS },
    });
    const { client, clock, events } = h;
    const before = clock.now();
    await client.send(Endpoints.getCampaign("5001"));
    await client.send(Endpoints.patchCampaigns([{ id: "5001", active: false }]));
    expect(clock.now()).toBe(before);
    const responses = events.filter((e) => e.type === "response");
    expect(responses.map((e) => e.waitedMs)).toEqual([0, 0, 0]);
    expect(events.some((e) => e.type === "wait")).toBe(false);
  });

  it("reports a rate-limit wait with the time it ends, for a countdown", async () => {
    h = await emulatorWorld({
      seed: seedWithCampaigns(3),
      emulator: { rateLimits: { ...PUBLISHED_RATE_LIMITS, write: { limit: 2, windowMs: 60_000 } } },
      client: { rateLimits: { ...PUBLISHED_RATE_LIMITS, write: { limit: 2, windowMs: 60_000 } } },
    });
    const { client, events, clock } = h;
    const start = clock.now();
    for (let i = 0; i < 3; i++) {
      await client.send(Endpoints.patchCampaigns([{ id: "5001", budget_impressions: 10 + i }]));
    }
    const wait = events.find((e) => e.type === "wait");
    expect(wait).toMatchObject({ type: "wait", class: "write", reason: "rate-limit" });
    expect(wait?.type === "wait" && wait.until).toBeGreaterThanOrEqual(start + 60_000);
    expect(h.seen("PATCH", CAMPAIGNS_PATH)).toBe(3);
    expect(h.emulator.requestLog().filter((e) => e.status === 429)).toEqual([]);
  });

  it("runs a write's check once its slot is granted; a refusal sends nothing and frees the slot", async () => {
    const oneWrite = { ...PUBLISHED_RATE_LIMITS, write: { limit: 1, windowMs: 60_000 } };
    h = await emulatorWorld({
      seed: seedWithCampaigns(3),
      emulator: { rateLimits: oneWrite },
      client: { rateLimits: oneWrite },
    });
    const { client, clock } = h;
    const start = clock.now();
    await client.send(Endpoints.patchCampaigns([{ id: "5001", budget_impressions: 10 }]));
    const moved = new Error("campaign 5001 moved");
    let checkedAt: number | undefined;
    const refused = client.send(Endpoints.patchCampaigns([{ id: "5001", budget_impressions: 11 }]), {
      beforeSend: async () => {
        checkedAt = clock.now();
        throw moved;
      },
    });
    await expect(refused).rejects.toBe(moved);
    expect(checkedAt).toBeGreaterThanOrEqual(start + 60_000);
    expect(h.seen("PATCH", CAMPAIGNS_PATH)).toBe(1);
    // Nothing reached the DSP's count: the next write goes at once.
    const before = clock.now();
    await client.send(Endpoints.patchCampaigns([{ id: "5001", budget_impressions: 12 }]));
    expect(clock.now()).toBe(before);
    expect(h.seen("PATCH", CAMPAIGNS_PATH)).toBe(2);
  });

  it("runs the check again before a retry, saying that the failed attempt may have landed", async () => {
    h = await emulatorWorld({ seed: seedWithCampaigns(3), emulator: { rateLimits: "off" } });
    const { client, emulator } = h;
    const checks: boolean[] = [];
    await client.send(Endpoints.patchCampaigns([{ id: "5001", budget_impressions: 10 }]), {
      beforeSend: async ({ mayHaveLanded }) => {
        checks.push(mayHaveLanded);
        // The first attempt is answered 500, the retry as usual.
        emulator.setFaults(checks.length === 1 ? "500:1" : "", 1);
      },
    });
    expect(checks).toEqual([false, true]);
    expect(h.seen("PATCH", CAMPAIGNS_PATH)).toBe(2);
  });
});
