import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDspClient } from "../../src/api/client.js";
import { Endpoints } from "../../src/api/endpoints.js";
import { CredentialsError } from "../../src/api/errors.js";
import { tokenFromSetCookie } from "../../src/api/session.js";
import { SESSION_PATH } from "../../src/model/wire.js";
import { seedWithCampaigns } from "../helpers/builders.js";
import { USER } from "../helpers/users.js";
import { type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

let h: EmulatorWorld | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("sessions (spec, Authentication; G9)", () => {
  it("logs in once and reuses the cookie for every request", async () => {
    h = await emulatorWorld({ seed: seedWithCampaigns(3), emulator: { rateLimits: "off" } });
    await h.client.send(Endpoints.getCampaign("5001"));
    await Promise.all([
      h.client.getCampaigns(["5001", "5002"]),
      h.client.getTargetings(["5001", "5002", "5003"]),
    ]);
    expect(h.seen("POST", SESSION_PATH)).toBe(1);
    expect(h.client.stats().logins).toBe(1);
    expect(h.events.filter((e) => e.type === "login")).toEqual([
      { type: "login", email: USER.email, cached: false },
    ]);
  });

  it("says the login answered 200 without this environment's cookie, not that it 'failed with 200'", async () => {
    h = await emulatorWorld({
      seed: seedWithCampaigns(3),
      emulator: { rateLimits: "off" },
      client: { environment: "staging" },
    });
    const error = await h.client.send(Endpoints.getCampaign("5001")).catch((e: Error) => e);
    expect((error as Error).message).toBe(
      "POST /api/session answered 200 but set no tr-staging session cookie: check connection.environment (staging), the user may belong to the other environment",
    );
  });

  it("logs in again, transparently, when the 8-hour session runs out mid-run", async () => {
    h = await emulatorWorld({
      seed: seedWithCampaigns(3),
      autoAdvance: false,
      emulator: { rateLimits: "off" },
    });
    await h.client.send(Endpoints.getCampaign("5001"));
    h.clock.advance(8 * 60 * 60 * 1000);
    expect((await h.client.send(Endpoints.getCampaign("5002"))).id).toBe("5002");
    expect(h.seen("POST", SESSION_PATH)).toBe(2);
    expect(h.emulator.requestLog().filter((e) => e.status === 401 || e.status === 403)).toEqual([]);
  });

  it("refuses wrong credentials with an error naming the user, and the password appears nowhere", async () => {
    const password = "wrong-password-7731";
    h = await emulatorWorld({
      seed: seedWithCampaigns(3),
      emulator: { rateLimits: "off" },
      client: { credentials: { email: USER.email, password } },
    });
    const error = await h.client.send(Endpoints.getCampaign("5001")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialsError);
    const message = (error as Error).message;
    expect(message).toContain(USER.email);
    expect(message).toMatch(/DOOHCTL_PASSWORD/);
    const everything = JSON.stringify({ message, stack: (error as Error).stack, events: h.events, error });
    expect(everything).not.toContain(password);
    expect(everything).not.toContain(USER.password);
  });
});

describe("session cache file", () => {
  const cacheDir = () => join(mkdtempSync(join(tmpdir(), "doohctl-session-")), "cache");

  it("lets a second run reuse the session, from a 0600 file whose name reveals nothing", async () => {
    const dir = cacheDir();
    h = await emulatorWorld({
      seed: seedWithCampaigns(3),
      emulator: { rateLimits: "off" },
      client: { sessionCache: { dir } },
    });
    await h.client.send(Endpoints.getCampaign("5001"));
    const [file] = readdirSync(dir);
    expect(file).toMatch(/^session-[0-9a-f]{32}\.json$/);
    expect(file).not.toContain("ops");
    expect(statSync(join(dir, file!)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const token = JSON.parse(readFileSync(join(dir, file!), "utf8")).token as string;

    const second = createDspClient({
      apiOrigin: h.emulator.origin,
      environment: "production",
      credentials: USER,
      clock: h.clock,
      sessionCache: { dir },
    });
    const events: unknown[] = [];
    second.on((e) => events.push(e));
    // Concurrent first requests share the one cached session.
    await Promise.all([second.send(Endpoints.getCampaign("5002")), second.getCampaigns(["5001", "5003"])]);
    await second.close();
    expect(h.seen("POST", SESSION_PATH)).toBe(1);
    expect(events).toContainEqual({ type: "login", email: USER.email, cached: true });
    // The token never reaches an event.
    expect(JSON.stringify([events, h.events])).not.toContain(token);
  });

  it("goes on without the cache, with a warning, when the cache cannot be written", async () => {
    // The cache directory's parent is a file: mkdir fails with ENOTDIR.
    const parent = join(mkdtempSync(join(tmpdir(), "doohctl-session-")), "not-a-dir");
    writeFileSync(parent, "");
    h = await emulatorWorld({
      seed: seedWithCampaigns(3),
      emulator: { rateLimits: "off" },
      client: { sessionCache: { dir: join(parent, "cache") } },
    });
    const campaign = await h.client.send(Endpoints.getCampaign("5001"));
    expect(campaign.id).toBe("5001");
    const warnings = h.events.filter((e) => e.type === "warning");
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings)).toMatch(/session cache not used.*ENOTDIR.*--no-session-cache/);
    expect(JSON.stringify(warnings)).not.toContain(USER.password);
  });

  it("logs in again once when the DSP answers 403 to a cached session", async () => {
    const dir = cacheDir();
    h = await emulatorWorld({
      seed: seedWithCampaigns(3),
      emulator: { rateLimits: "off" },
      client: { sessionCache: { dir } },
    });
    await h.client.send(Endpoints.getCampaign("5001"));
    const [file] = readdirSync(dir);
    const path = join(dir, file!);
    const cached = JSON.parse(readFileSync(path, "utf8"));
    writeFileSync(path, JSON.stringify({ ...cached, token: "revoked-token" }));

    const second = createDspClient({
      apiOrigin: h.emulator.origin,
      environment: "production",
      credentials: USER,
      clock: h.clock,
      sessionCache: { dir },
    });
    expect((await second.send(Endpoints.getCampaign("5002"))).id).toBe("5002");
    await second.close();
    const log = h.emulator.requestLog();
    expect(log.filter((e) => e.status === 403)).toHaveLength(1);
    expect(h.seen("POST", SESSION_PATH)).toBe(2);
    expect(JSON.parse(readFileSync(path, "utf8")).token).not.toBe("revoked-token");
  });

  it("ignores a cached session for another environment or user", async () => {
    const dir = cacheDir();
    h = await emulatorWorld({
      seed: seedWithCampaigns(3),
      emulator: { rateLimits: "off" },
      client: { sessionCache: { dir } },
    });
    await h.client.send(Endpoints.getCampaign("5001"));
    const other = createDspClient({
      apiOrigin: h.emulator.origin,
      environment: "production",
      credentials: { email: "someone@doohctl.test", password: "x" },
      clock: h.clock,
      sessionCache: { dir },
    });
    await expect(other.send(Endpoints.getCampaign("5001"))).rejects.toBeInstanceOf(CredentialsError);
    await other.close();
    expect(h.seen("POST", SESSION_PATH)).toBe(2);
  });
});

describe("the session's account (G9)", () => {
  it("is the account_id of a login answer of each run, never the cached session's", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "doohctl-session-")), "cache");
    h = await emulatorWorld({
      seed: seedWithCampaigns(3),
      emulator: { rateLimits: "off" },
      client: { sessionCache: { dir } },
    });
    expect(await h.client.accountId()).toBe(USER.account_id);
    const second = createDspClient({
      apiOrigin: h.emulator.origin,
      environment: "production",
      credentials: USER,
      clock: h.clock,
      sessionCache: { dir },
    });
    expect(await second.accountId()).toBe(USER.account_id);
    await second.close();
    expect(h.seen("POST", SESSION_PATH)).toBe(2);
  });
});

describe("tokenFromSetCookie", () => {
  it("finds the environment's cookie among several", () => {
    const header = ["other=1; Path=/", "tr-production=abc.def; Secure; HttpOnly; Path=/"];
    expect(tokenFromSetCookie(header, "tr-production")).toBe("abc.def");
    expect(tokenFromSetCookie(header, "tr-staging")).toBeUndefined();
  });
});
