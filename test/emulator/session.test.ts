import { afterEach, describe, expect, it } from "vitest";
import { VirtualClock } from "../../src/model/clock.js";
import { PUBLISHED_RATE_LIMITS } from "../../src/model/limits.js";
import { seedAccount } from "../helpers/builders.js";
import { USER } from "../helpers/users.js";
import { emulatorWorld } from "../helpers/world.js";
import { boot, DSP, login, request, type Session } from "./helpers.js";

let s: Session | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

describe("sessions (G9)", () => {
  it("starts a session with a Secure HttpOnly tr-production cookie that expires in 8 hours", async () => {
    s = await boot();
    const reply = await request(s.emulator.origin, "POST", "/api/session", {
      body: { email: USER.email, password: USER.password },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ email: USER.email, account_id: "1", expires_at: "2026-11-01T08:00:00Z" });
    const cookie = reply.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(
      /^tr-production=[A-Za-z0-9_-]{20,}; Secure; HttpOnly; Path=\/; Expires=Sun, 01 Nov 2026 08:00:00 GMT$/,
    );
  });

  it("answers 401 Not Authorized to wrong credentials and 422 to missing ones", async () => {
    s = await boot();
    const wrong = await request(s.emulator.origin, "POST", "/api/session", {
      body: { email: USER.email, password: "nope" },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ message: "Not Authorized" });
    const missing = await request(s.emulator.origin, "POST", "/api/session", { body: { email: USER.email } });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      message: "Invalid Request",
      data: [{ field: "password", messages: ["is required"] }],
    });
  });

  it("answers 401 without a cookie and 403 with an unknown token", async () => {
    s = await boot();
    const none = await request(s.emulator.origin, "GET", `${DSP}/campaigns`);
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ message: "Not Authorized" });
    const unknown = await request(s.emulator.origin, "GET", `${DSP}/campaigns`, {
      cookie: "tr-production=forged",
    });
    expect(unknown.status).toBe(403);
    expect(unknown.body).toEqual({ message: "Not Authenticated" });
  });

  it("expires a session 8 hours after creation on the emulator's clock", async () => {
    s = await boot();
    s.clock.advance(8 * 3600_000 - 1);
    expect((await s.get(`${DSP}/campaigns`)).status).toBe(200);
    s.clock.advance(1);
    expect((await s.get(`${DSP}/campaigns`)).status).toBe(403);
  });

  it("ends the session of the cookie sent on DELETE /api/session", async () => {
    s = await boot();
    const end = await s.call("DELETE", "/api/session");
    expect(end.status).toBe(204);
    expect((await s.get(`${DSP}/campaigns`)).status).toBe(403);
  });

  it("never writes the password into the request log", async () => {
    s = await boot();
    const log = s.emulator.requestLog();
    expect(log[0]).toMatchObject({ method: "POST", path: "/api/session", status: 200 });
    expect(JSON.stringify(log)).not.toContain(USER.password);
  });
});

describe("staging (G13)", () => {
  it("answers 404 on every DSP path while sessions and the media-owner interface work with tr-staging", async () => {
    const world = await emulatorWorld({
      seed: seedAccount(),
      clock: new VirtualClock(),
      emulator: { control: false, rateLimits: PUBLISHED_RATE_LIMITS, environment: "staging" },
    });
    const { emulator } = world;
    try {
      const reply = await request(emulator.origin, "POST", "/api/session", {
        body: { email: USER.email, password: USER.password },
      });
      const cookie = (reply.headers.get("set-cookie") ?? "").split(";")[0]!;
      expect(cookie).toMatch(/^tr-staging=/);
      for (const path of [`${DSP}/campaigns`, `${DSP}/advertisers/1`, `${DSP}/nope`]) {
        const dsp = await request(emulator.origin, "GET", path, { cookie });
        expect(dsp.status).toBe(404);
        expect(dsp.body).toEqual({ message: "Not Found" });
      }
      const networks = await request(emulator.origin, "GET", "/api/media_owner/v1/networks", { cookie });
      expect(networks.status).toBe(200);
      expect(networks.body.total_size).toBe(2);
      // The media-owner interface accepts tr-staging or tr-production (spec); DELETE
      // /api/session, not part of it, takes the environment's cookie only.
      const prodCookie = cookie.replace("tr-staging", "tr-production");
      expect(
        (await request(emulator.origin, "GET", "/api/media_owner/v1/networks", { cookie: prodCookie }))
          .status,
      ).toBe(200);
      expect((await request(emulator.origin, "DELETE", "/api/session", { cookie: prodCookie })).status).toBe(
        401,
      );
    } finally {
      await emulator.close();
    }
  });

  it("logs in with the helper against production", async () => {
    s = await boot();
    expect(await login(s.emulator.origin)).toMatch(/^tr-production=/);
  });
});
