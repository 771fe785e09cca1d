import { afterEach, describe, expect, it } from "vitest";
import { PUBLISHED_RATE_LIMITS } from "../../src/model/limits.js";
import { USER } from "../helpers/users.js";
import { boot, DSP, request, type Session } from "./helpers.js";

let s: Session | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const patch = (session: Session) => session.call("PATCH", `${DSP}/campaigns/5002`, { pacing: {} });

describe("rate limits (G10)", () => {
  it("lets exactly 10 writes through a window; the 11th gets 429 with the seconds until the oldest leaves", async () => {
    s = await boot({ rateLimits: PUBLISHED_RATE_LIMITS });
    for (let i = 0; i < 10; i++) {
      expect((await patch(s)).status).toBe(200);
      s.clock.advance(1_000);
    }
    // The first write was at t=0; now is t=10s, so it leaves the window in 50 s.
    const refused = await patch(s);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ message: "Too Many Requests" });
    expect(refused.headers.get("retry-after")).toBe("50");
    s.clock.advance(49_500);
    expect((await patch(s)).headers.get("retry-after")).toBe("1");
    s.clock.advance(500);
    expect((await patch(s)).status).toBe(200);
    // Slid by one: the second write (t=1s) is now the oldest.
    const again = await patch(s);
    expect(again.status).toBe(429);
    expect(again.headers.get("retry-after")).toBe("1");
  });

  it("does not count refused requests against the window", async () => {
    s = await boot({ rateLimits: { ...PUBLISHED_RATE_LIMITS, write: { limit: 2, windowMs: 60_000 } } });
    await patch(s);
    await patch(s);
    for (let i = 0; i < 5; i++) expect((await patch(s)).status).toBe(429);
    s.clock.advance(60_000);
    expect((await patch(s)).status).toBe(200);
    expect((await patch(s)).status).toBe(200);
  });

  it("counts GETs apart from writes, and counts 422 answers", async () => {
    s = await boot({
      rateLimits: {
        ...PUBLISHED_RATE_LIMITS,
        get: { limit: 3, windowMs: 60_000 },
        write: { limit: 1, windowMs: 60_000 },
      },
    });
    expect((await s.call("PATCH", `${DSP}/campaigns/5002`, { colour: "red" })).status).toBe(422);
    expect((await patch(s)).status).toBe(429);
    for (let i = 0; i < 3; i++) expect((await s.get(`${DSP}/campaigns`)).status).toBe(200);
    expect((await s.get(`${DSP}/campaigns`)).status).toBe(429);
  });

  it("limits session creation per IP, wrong passwords included", async () => {
    s = await boot({ rateLimits: PUBLISHED_RATE_LIMITS });
    // boot() logged in once already.
    for (let i = 0; i < 9; i++) {
      const reply = await request(s.emulator.origin, "POST", "/api/session", {
        body: { email: USER.email, password: "x" },
      });
      expect(reply.status).toBe(401);
    }
    const refused = await request(s.emulator.origin, "POST", "/api/session", { body: USER });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
  });

  it("never limits with rate limits off", async () => {
    s = await boot({ rateLimits: "off" });
    for (let i = 0; i < 30; i++) expect((await patch(s)).status).toBe(200);
  });
});
