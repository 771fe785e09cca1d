import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseFaults } from "../../src/emulator/faults.js";
import { FaultSpecError, SeedError } from "../../src/emulator/index.js";
import { VirtualClock } from "../../src/model/clock.js";
import { PUBLISHED_RATE_LIMITS } from "../../src/model/limits.js";
import { seedAccount } from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { emulatorWorld } from "../helpers/world.js";
import { boot, DSP, login, request, type Session } from "./helpers.js";

let s: Session | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

describe("faults", () => {
  it("parses kind:probability lists and refuses bad ones with a hint", () => {
    expect(parseFaults("429:0.1, 500:0.05,reset:0.01")).toEqual([
      { kind: "429", probability: 0.1 },
      { kind: "500", probability: 0.05 },
      { kind: "reset", probability: 0.01 },
    ]);
    expect(() => parseFaults("418:0.1")).toThrow(FaultSpecError);
    expect(() => parseFaults("500:2")).toThrow(/between 0 and 1/);
    expect(() => parseFaults("500:0.6,429:0.6")).toThrow(/more than 1/);
  });

  it("answers injected 429s with Retry-After before handling, so a faulted write changes nothing", async () => {
    s = await boot();
    s.emulator.setFaults("429:1");
    const before = s.emulator.state();
    const reply = await s.call("PATCH", `${DSP}/campaigns/5002`, { active: true });
    expect(reply.status).toBe(429);
    expect(reply.headers.get("retry-after")).toBe("1");
    expect(s.emulator.state()).toEqual(before);
    expect(s.emulator.requestLog().at(-1)).toMatchObject({ status: 429, fault: "429" });
  });

  it("drops the connection without an answer for reset", async () => {
    s = await boot();
    s.emulator.setFaults("reset:1");
    await expect(s.get(`${DSP}/campaigns`)).rejects.toThrow();
  });

  it("draws the same faults for the same seed", async () => {
    s = await boot();
    const run = async () => {
      s!.emulator.setFaults("500:0.5", 42);
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await s!.get(`${DSP}/advertisers`)).status);
      return statuses;
    };
    const first = await run();
    expect(first).toContain(500);
    expect(first).toContain(200);
    expect(await run()).toEqual(first);
  });

  it("keeps drawing from its fault seed when the faults are set later without a seed", async () => {
    const statuses = async (session: Session) => {
      const out: number[] = [];
      for (let i = 0; i < 24; i++) out.push((await session.get(`${DSP}/advertisers`)).status);
      return out;
    };
    s = await boot();
    s.emulator.setFaults("500:0.5", 42);
    const seeded = await statuses(s);
    await s.close();
    s = await boot({ faultSeed: 42 });
    s.emulator.setFaults("500:0.5"); // after login, as the client fault tests do
    expect(await statuses(s)).toEqual(seeded);
  });
});

describe("persistence (--state)", () => {
  it("keeps the state across a restart, written atomically", async () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-emulator-"));
    const statePath = join(dir, "state.json");
    s = await boot({ statePath });
    await s.call("PATCH", `${DSP}/campaigns/5002`, { active: true, budget_impressions: 1234 });
    await s.call("POST", `${DSP}/advertisers`, { name: "Fabrikam" });
    await s.close();
    expect(readdirSync(dir)).toEqual(["state.json"]);
    expect(JSON.parse(readFileSync(statePath, "utf8")).format).toBe("doohctl-emulator-state");
    // Restarted with another seed: the state file wins.
    const world = await emulatorWorld({
      seed: seedAccount({
        advertisers: [
          { id: "1", name: "Northwind Beverages" },
          { id: "2", name: "Contoso Travel" },
        ],
      }),
      clock: new VirtualClock(),
      emulator: { control: false, statePath, rateLimits: "off" },
    });
    const { emulator } = world;
    s = { ...s, emulator, close: () => world.close() };
    const cookie = await login(emulator.origin);
    const campaign = await request(emulator.origin, "GET", `${DSP}/campaigns/5002`, { cookie });
    expect(campaign.body).toMatchObject({ active: true, budget_impressions: 1234 });
    expect((await request(emulator.origin, "GET", `${DSP}/advertisers/3`, { cookie })).body).toEqual({
      id: "3",
      name: "Fabrikam",
    });
  });
});

describe("seeds", () => {
  it("refuses a seed that breaks the schema or the API's rules, naming each path", async () => {
    const bad = seedAccount();
    bad.campaigns![1]!.end_time = "2027-05-01T00:00:00Z";
    bad.campaigns![2]!.insertion_order_id = "999";
    bad.creatives![0]!.insertion_order_ids = [];
    await expect(
      startCliAccount({ seed: bad, emulator: { rateLimits: PUBLISHED_RATE_LIMITS } }),
    ).rejects.toThrow(SeedError);
    try {
      (await startCliAccount({ seed: bad, emulator: { rateLimits: PUBLISHED_RATE_LIMITS } })).emulator;
    } catch (error) {
      expect((error as SeedError).issues).toEqual([
        { field: "campaigns[2].insertion_order_id", messages: ["insertion order 999 does not exist"] },
        {
          field: "creatives[0].insertion_order_ids",
          messages: ["must include insertion order 1001 of campaign 5001 (G6 rule 3)"],
        },
      ]);
    }
    const schema = { ...seedAccount(), advertisers: [{ id: "x", name: "A", colour: "red" }] };
    await expect(
      startCliAccount({ seed: schema as never, emulator: { rateLimits: PUBLISHED_RATE_LIMITS } }),
    ).rejects.toThrow(/advertisers\[0\]\.colour: is not a known property/);
    const g8 = seedAccount();
    g8.campaigns![1]!.end_time = "2027-05-01T00:00:00Z";
    await expect(
      startCliAccount({ seed: g8, emulator: { rateLimits: PUBLISHED_RATE_LIMITS } }),
    ).rejects.toThrow(/campaigns\[1\]\.end_time: must not be after insertion order 1001 ends/);
  });
});
