/**
 * A seed written for a day (`today`) is placed at the day the emulator starts (docs/emulator.md,
 * "A seed placed at today"): every date moves by the same whole days, so the demo world has
 * flights in flight, ended and upcoming on any day. A seed without `today` keeps its dates.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { EmulatorSeed } from "../../src/emulator/index.js";
import { seedAccount } from "../helpers/builders.js";
import { exampleSeed } from "../helpers/example-seed.js";
import { USER } from "../helpers/users.js";
import { boot, DSP, fields, type Session } from "./helpers.js";

let s: Session | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** The demo world, with the test user that `boot` logs in as. */
async function demoWorld(): Promise<EmulatorSeed> {
  const { seed } = await exampleSeed();
  return { ...seed, users: [...(seed.users ?? []), USER] };
}

const campaign = (session: Session, id: string) =>
  session.emulator.state().campaigns.find((c) => c.id === id);

async function inFlight(session: Session): Promise<string[]> {
  const reply = await session.get(`${DSP}/campaigns?page_size=100&filter=in_flight:true`);
  return (reply.body.campaigns as { id: string }[]).map((c) => c.id);
}

describe("a seed placed at today", () => {
  it("moves the demo world's every date by the days from its `today` to the clock's day", async () => {
    const seed = await demoWorld();
    // 2026-12-20 to 2029-06-30 is 11 + 365 + 365 + 182 = 923 days; 21:00 keeps the hour apart.
    s = await boot({ seed, at: "2029-06-30T21:00:00Z" });
    expect(s.emulator.placedDays).toBe(923);
    // Holiday airports ran Dec 1 2026 .. Jan 1 2027: now Jun 11 .. Jul 12 2029, in flight.
    expect(campaign(s, "5001")).toMatchObject({
      start_time: "2029-06-11T00:00:00Z",
      end_time: "2029-07-12T00:00:00Z",
    });
    expect(s.emulator.state().creatives.find((c) => c.id === "9001")?.create_time).toBe(
      "2029-04-11T09:00:00Z", // Oct 1 2026 + 365 + 366 + 192 days
    );
    // In flight, ended and upcoming as on the written day: the holiday and ski campaigns in
    // flight (5202 starts that very day); 5003 (ended Dec 15), January and spring ones not.
    expect(await inFlight(s)).toEqual(["5001", "5002", "5201", "5202", "5204"]);
  });

  it("places nothing on the written day itself, and keeps a seed without `today` as written", async () => {
    const seed = await demoWorld();
    s = await boot({ seed, at: "2026-12-20T23:59:00Z" });
    expect(s.emulator.placedDays).toBe(0);
    expect(campaign(s, "5001")?.start_time).toBe("2026-12-01T00:00:00Z");
    await s.close();
    s = await boot({ seed: seedAccount(), at: "2031-01-01T00:00:00Z" });
    expect(s.emulator.placedDays).toBe(0);
    expect(campaign(s, "5001")?.start_time).toBe(seedAccount().campaigns?.[0]?.start_time);
  });

  it("keeps a state file's dates as first placed across a restart on a later day", async () => {
    const seed = await demoWorld();
    const dir = mkdtempSync(join(tmpdir(), "doohctl-placement-"));
    try {
      const statePath = join(dir, "state.json");
      s = await boot({ seed, at: "2027-01-09T08:00:00Z", statePath }); // +20 days
      expect(campaign(s, "5001")?.start_time).toBe("2026-12-21T00:00:00Z");
      await s.close();
      s = await boot({ seed, at: "2027-02-01T08:00:00Z", statePath });
      expect(s.emulator.placedDays).toBe(0);
      expect(campaign(s, "5001")?.start_time).toBe("2026-12-21T00:00:00Z");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("places a seed given to a reset at the reset's day", async () => {
    s = await boot({ at: "2027-01-01T12:00:00Z", control: true });
    const seed: EmulatorSeed = { ...seedAccount(), today: "2026-12-02" }; // 30 days before
    const reply = await s.call("POST", "/__emulator/reset", { seed });
    expect(reply.status).toBe(200);
    const written = seedAccount().campaigns?.[0]?.start_time ?? "";
    const moved = new Date(Date.parse(written) + 30 * 86_400_000).toISOString().replace(".000Z", "Z");
    expect(campaign(s, "5001")?.start_time).toBe(moved);
  });

  it("refuses a `today` that is no calendar date, naming it", async () => {
    const reset = await boot({ control: true });
    s = reset;
    const reply = await s.call("POST", "/__emulator/reset", {
      seed: { ...seedAccount(), today: "2027-02-29" },
    });
    expect(reply.status).toBe(422);
    expect(fields(reply)).toEqual({
      "seed.today": ['"2027-02-29" is not a calendar date: write the day as YYYY-MM-DD'],
    });
  });
});
