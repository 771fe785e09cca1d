import { afterEach, describe, expect, it } from "vitest";
import { VirtualClock } from "../../src/model/clock.js";
import { PUBLISHED_RATE_LIMITS } from "../../src/model/limits.js";
import { seedAccount } from "../helpers/builders.js";
import { USER } from "../helpers/users.js";
import { emulatorWorld } from "../helpers/world.js";
import { boot, DSP, request, type Session } from "./helpers.js";

let s: Session | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

describe("request bodies (spec, Errors; G12)", () => {
  it("answers 400 Invalid JSON to a write without Content-Type application/json", async () => {
    s = await boot();
    const reply = await s.call("PATCH", `${DSP}/campaigns/5001`, undefined, {
      raw: '{"active":false}',
      headers: { "content-type": "text/plain" },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      message: "Invalid JSON",
      data: [{ field: "Content-Type", messages: ["must be application/json"] }],
    });
  });

  it("answers 400 Invalid JSON to bad syntax and to invalid UTF-8, changing nothing", async () => {
    s = await boot();
    const before = s.emulator.state();
    const syntax = await s.call("PATCH", `${DSP}/campaigns/5001`, undefined, {
      raw: '{"active":',
      headers: { "content-type": "application/json" },
    });
    expect(syntax.body).toEqual({
      message: "Invalid JSON",
      data: [{ field: "body", messages: ["is not valid JSON"] }],
    });
    const encoding = await s.call("PATCH", `${DSP}/campaigns/5001`, undefined, {
      raw: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
      headers: { "content-type": "application/json" },
    });
    expect(encoding.body).toEqual({
      message: "Invalid JSON",
      data: [{ field: "body", messages: ["is not valid UTF-8"] }],
    });
    expect(s.emulator.state()).toEqual(before);
  });

  it("refuses a body over 1 MiB with 400 Invalid JSON, a status the specification lists", async () => {
    s = await boot();
    const reply = await s.call("PATCH", `${DSP}/campaigns`, {
      campaigns: [{ id: "5001", pacing: { pad: "x".repeat(1_100_000) } }],
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      message: "Invalid JSON",
      data: [{ field: "body", messages: ["must be at most 1048576 bytes"] }],
    });
  });

  it("answers a body that is not an object with 422", async () => {
    s = await boot();
    const reply = await s.call("PATCH", `${DSP}/campaigns`, [1, 2]);
    expect(reply.body).toEqual({
      message: "Invalid Request",
      data: [{ field: "body", messages: ["must be a JSON object"] }],
    });
  });
});

describe("paths and methods", () => {
  it("answers 404 Not Found to an unknown path, before asking for a session", async () => {
    s = await boot();
    const reply = await request(s.emulator.origin, "GET", "/api/dsp/v2/campaigns");
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ message: "Not Found" });
  });

  it("answers 404 Not Found, no 405, to a known path with another method (no such operation)", async () => {
    s = await boot();
    const reply = await s.call("DELETE", `${DSP}/campaigns/5001`);
    expect(reply.status).toBe(404);
    expect(reply.headers.get("allow")).toBeNull();
    expect(reply.body).toEqual({ message: "Not Found" });
    expect((await s.call("PUT", `${DSP}/creatives`, { creatives: [] })).status).toBe(404);
    expect(s.emulator.state().campaigns.map((c) => c.id)).toContain("5001");
  });
});

describe("control path", () => {
  it("is absent unless the emulator was started with control, and never logged", async () => {
    const world = await emulatorWorld({
      seed: seedAccount(),
      clock: new VirtualClock(),
      emulator: { control: false, rateLimits: PUBLISHED_RATE_LIMITS },
    });
    const { emulator } = world;
    try {
      expect((await request(emulator.origin, "GET", "/__emulator/state")).status).toBe(404);
      expect(emulator.requestLog()).toEqual([]);
    } finally {
      await world.close();
    }
  });

  it("dumps state, lists requests, moves the clock, resets and changes faults", async () => {
    s = await boot();
    const origin = s.emulator.origin;
    await s.call("PATCH", `${DSP}/campaigns/5002`, { active: true });
    const state = await request(origin, "GET", "/__emulator/state");
    expect(state.body.campaigns.find((c: { id: string }) => c.id === "5002").active).toBe(true);
    const log = await request(origin, "GET", "/__emulator/requests");
    expect(
      log.body.requests.map((r: { method: string; status: number }) => `${r.method} ${r.status}`),
    ).toEqual(["POST 200", "PATCH 200"]);
    expect(log.body.requests[1]).toMatchObject({
      path: `${DSP}/campaigns/5002`,
      user: USER.email,
      body: { active: true },
    });
    const clock = await request(origin, "POST", "/__emulator/clock", { body: { advance_ms: 90_000 } });
    expect(clock.body).toEqual({ now: "2026-11-01T00:01:30Z" });
    const reset = await request(origin, "POST", "/__emulator/reset", { body: {} });
    expect(reset.body.campaigns.find((c: { id: string }) => c.id === "5002").active).toBe(false);
    const faults = await request(origin, "POST", "/__emulator/faults", { body: { spec: "500:1", seed: 7 } });
    expect(faults.body).toEqual({ spec: "500:1" });
    expect((await request(origin, "GET", `${DSP}/campaigns`)).status).toBe(500);
    const bad = await request(origin, "POST", "/__emulator/faults", { body: { spec: "418:0.5" } });
    expect(bad.status).toBe(422);
  });
});
