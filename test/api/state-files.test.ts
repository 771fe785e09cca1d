/**
 * The client's state files, trusted only as the recovery record is (src/api/private-files.ts):
 * the session cache holds the token a run's requests carry (never the account whose recovery
 * record it reads: a login names that, G9), the pacing log how long a run waits (G10). Each
 * test is a hostile file or directory.
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Endpoints } from "../../src/api/endpoints.js";
import { filePacingLog, PacingLogError, pacingLogPath } from "../../src/api/pacing-log.js";
import { StateDirError } from "../../src/api/private-files.js";
import { Session, type SessionToken } from "../../src/api/session.js";
import { MAX_TIMER_MS, systemClock, VirtualClock } from "../../src/model/clock.js";
import { seedWithCampaigns } from "../helpers/builders.js";
import { type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

const ORIGIN = "https://dsp.example.com";
const EMAIL = "ops@example.com";
const HOUR = 60 * 60 * 1000;

function cacheFileName(): string {
  const key = createHash("sha256").update(`${ORIGIN}\nproduction\n${EMAIL}`).digest("hex");
  return `session-${key.slice(0, 32)}.json`;
}

/** A session over a fake login answering account 7, with its warnings and logins counted. */
function session(dir: string, options: { clock?: VirtualClock; uid?: number } = {}) {
  const clock = options.clock ?? new VirtualClock();
  const warnings: string[] = [];
  let logins = 0;
  const s = new Session({
    origin: ORIGIN,
    environment: "production",
    email: EMAIL,
    clock,
    cacheDir: dir,
    login: async (): Promise<SessionToken> => {
      logins++;
      return { token: `fresh-${logins}`, expiresAt: clock.now() + 8 * HOUR, accountId: "7" };
    },
    onCacheError: (message) => warnings.push(message),
    ...(options.uid !== undefined ? { owner: { uid: options.uid } } : {}),
  });
  return { session: s, warnings, logins: () => logins, clock };
}

/** A cache file as an attacker writes it: another account, a token that works for a while. */
function forge(dir: string, clock: VirtualClock, mode = 0o600): string {
  const path = join(dir, cacheFileName());
  const forged = {
    version: 1,
    origin: ORIGIN,
    environment: "production",
    email: EMAIL,
    token: "forged-token",
    expiresAt: clock.now() + HOUR,
    accountId: "999",
  };
  writeFileSync(path, JSON.stringify(forged), { mode });
  chmodSync(path, mode);
  return path;
}

function privateCacheDir(): string {
  const dir = join(mkdtempSync(join(tmpdir(), "doohctl-state-files-")), "cache");
  mkdirSync(dir, { mode: 0o700 });
  return dir;
}

describe("the session cache is trusted only as the recovery record is", () => {
  it("uses a cache of its own (0600 in a 0700 directory of this user's) for requests: its token, no login", async () => {
    const dir = privateCacheDir();
    const clock = new VirtualClock();
    forge(dir, clock);
    const s = session(dir, { clock });
    expect(await s.session.token()).toBe("forged-token");
    expect(s.logins()).toBe(0);
    expect(s.warnings).toEqual([]);
  });

  it("never takes the account from a cache, even its own: a login names it, and a cache that named another is discarded with a warning", async () => {
    const dir = privateCacheDir();
    const clock = new VirtualClock();
    const path = forge(dir, clock);
    const s = session(dir, { clock });
    expect(await s.session.accountId()).toBe("7");
    expect(s.logins()).toBe(1);
    expect(s.warnings).toEqual([
      `session cache discarded: ${path} named account 999, the DSP's login answer names account 7 (G9); it now holds this login's session`,
    ]);
    // The requests go with the login's session, and the cache now holds it.
    expect(await s.session.token()).toBe("fresh-1");
    expect(JSON.parse(readFileSync(path, "utf8"))).toMatchObject({ token: "fresh-1", accountId: "7" });
    // One login per run: asked again, the account is the login's, with no second login.
    expect(await s.session.accountId()).toBe("7");
    expect(s.logins()).toBe(1);
  });

  it("logs in for the account even when the cache names the same one (a token of another user may sit beside it), with no warning", async () => {
    const dir = privateCacheDir();
    const clock = new VirtualClock();
    const path = forge(dir, clock);
    writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, "utf8")), accountId: "7" }));
    const s = session(dir, { clock });
    expect(await s.session.accountId()).toBe("7");
    expect(s.logins()).toBe(1);
    expect(s.warnings).toEqual([]);
    expect(await s.session.token()).toBe("fresh-1");
  });

  it.each([
    ["not JSON", "{ torn"],
    ["JSON but no object", "null"],
  ])("replaces a cache file that is %s, with the warning every bad cache gets", async (_, text) => {
    const dir = privateCacheDir();
    const path = join(dir, cacheFileName());
    writeFileSync(path, text, { mode: 0o600 });
    const s = session(dir);
    expect(await s.session.token()).toBe("fresh-1");
    expect(s.warnings).toEqual([`session cache not used, logging in afresh: ${path} is not a JSON object`]);
    expect(JSON.parse(readFileSync(path, "utf8")).token).toBe("fresh-1");
  });

  it("ignores a forged cache in a directory others can write (0777): the account comes from a login, with a warning naming the path and the chmod", async () => {
    const dir = privateCacheDir();
    chmodSync(dir, 0o777);
    const clock = new VirtualClock();
    const path = forge(dir, clock);
    const s = session(dir, { clock });
    expect(await s.session.token()).toBe("fresh-1");
    expect(s.logins()).toBe(1);
    expect(s.warnings).toEqual([
      `session cache not used, logging in afresh: ${dir} has mode 777: group or others could read or plant a session cache or pacing log; run: chmod 700 ${dir}`,
    ]);
    // Nothing of this run's goes into a directory others can read.
    expect(JSON.parse(readFileSync(path, "utf8")).token).toBe("forged-token");
  });

  it("ignores a cache file open to others (0644), naming it and the chmod", async () => {
    const dir = privateCacheDir();
    const clock = new VirtualClock();
    const path = forge(dir, clock, 0o644);
    const s = session(dir, { clock });
    expect(await s.session.token()).toBe("fresh-1");
    expect(s.warnings).toEqual([
      `session cache not used, logging in afresh: ${path} is mode 644: group or others could read or replace it; run: chmod 600 ${path}`,
    ]);
    // The fresh session replaces it, 0600.
    expect(JSON.parse(readFileSync(path, "utf8")).accountId).toBe("7");
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("never reads a cache file through a link", async () => {
    const dir = privateCacheDir();
    const clock = new VirtualClock();
    const elsewhere = privateCacheDir();
    const target = forge(elsewhere, clock);
    symlinkSync(target, join(dir, cacheFileName()));
    const s = session(dir, { clock });
    expect(await s.session.token()).toBe("fresh-1");
    expect(s.warnings[0]).toMatch(/is a symbolic link, never followed/);
    expect(JSON.parse(readFileSync(target, "utf8")).accountId).toBe("999");
  });

  it("ignores a cache directory or file of another OS user (the owner check, injected)", async () => {
    const dir = privateCacheDir();
    const clock = new VirtualClock();
    forge(dir, clock);
    const other = (process.getuid?.() ?? 0) + 4242;
    const s = session(dir, { clock, uid: other });
    expect(await s.session.token()).toBe("fresh-1");
    expect(s.warnings[0]).toMatch(
      new RegExp(`${dir} belongs to uid \\d+, not to this user \\(uid ${other}\\).*chown ${other} ${dir}`),
    );
  });

  it("bounds the time it reads: a session said to end beyond 8 hours from now is not used", async () => {
    const dir = privateCacheDir();
    const clock = new VirtualClock();
    const path = forge(dir, clock);
    const file = JSON.parse(readFileSync(path, "utf8"));
    writeFileSync(path, JSON.stringify({ ...file, expiresAt: clock.now() + 9 * HOUR }));
    const s = session(dir, { clock });
    expect(await s.session.token()).toBe("fresh-1");
    expect(s.logins()).toBe(1);
  });
});

describe("the pacing log is trusted only as the recovery record is", () => {
  const who = { origin: ORIGIN, environment: "production", email: EMAIL };

  it("refuses a cache directory others can write, naming it and the chmod", () => {
    const dir = privateCacheDir();
    chmodSync(dir, 0o777);
    expect(() => pacingLogPath(dir, who)).toThrow(StateDirError);
    expect(() => pacingLogPath(dir, who)).toThrow(`${dir} has mode 777`);
    expect(() => pacingLogPath(dir, who)).toThrow(`run: chmod 700 ${dir}`);
  });

  it("refuses a log another OS user owns (the owner check, injected)", () => {
    const dir = privateCacheDir();
    const path = pacingLogPath(dir, who);
    writeFileSync(path, "", { mode: 0o600 });
    const other = (process.getuid?.() ?? 0) + 4242;
    expect(() => filePacingLog({ path, now: () => 0, keepMs: 61_000, owner: { uid: other } })).toThrow(
      /owned by uid \d+, not by this user/,
    );
  });

  it("never follows a link planted at its path: refused before the run, and no line appended to what it names", () => {
    const dir = privateCacheDir();
    const path = pacingLogPath(dir, who);
    const victim = join(privateCacheDir(), "unrelated.txt");
    writeFileSync(victim, "untouched\n", { mode: 0o600 });
    symlinkSync(victim, path);
    expect(() => filePacingLog({ path, now: () => 0, keepMs: 61_000 })).toThrow(PacingLogError);
    expect(() => filePacingLog({ path, now: () => 0, keepMs: 61_000 })).toThrow(
      `the pacing log ${path} is a symbolic link, never followed: doohctl reads only a log it wrote itself; remove it`,
    );
    // A link planted during a run: the append fails, never reaches the file it names.
    const during = join(dir, "during.log");
    const log = filePacingLog({ path: during, now: () => 0, keepMs: 61_000 });
    symlinkSync(victim, during);
    log.record("get", 1);
    expect(readFileSync(victim, "utf8")).toBe("untouched\n");
  });

  it("refuses a log open to others (0644), naming the chmod", () => {
    const dir = privateCacheDir();
    const path = pacingLogPath(dir, who);
    writeFileSync(path, "", { mode: 0o644 });
    chmodSync(path, 0o644);
    expect(() => filePacingLog({ path, now: () => 0, keepMs: 61_000 })).toThrow(`run: chmod 600 ${path}`);
  });

  it("counts a line dated in the future as sent when first seen: it holds a slot one window, not until its date", () => {
    const dir = privateCacheDir();
    const path = pacingLogPath(dir, who);
    let now = 1_000_000;
    writeFileSync(path, `forged01 get ${now + HOUR}\nforged02 get 1e300\n`, { mode: 0o600 });
    const log = filePacingLog({ path, now: () => now, keepMs: 61_000 });
    expect(log.others("get", now - 61_000)).toEqual([now, now]);
    const seen = now;
    now += 30_000;
    expect(log.others("get", now - 61_000)).toEqual([seen, seen]);
    now += 31_001;
    expect(log.others("get", now - 61_000)).toEqual([]);
  });

  it("writes a future date as now when it compacts the log", () => {
    const dir = privateCacheDir();
    const path = pacingLogPath(dir, who);
    const now = 1_000_000;
    writeFileSync(path, `forged01 get ${now + HOUR}\n`, { mode: 0o600 });
    const log = filePacingLog({ path, now: () => now, keepMs: 61_000 });
    for (let i = 0; i < 3200; i++) log.record("get", now);
    const lines = readFileSync(path, "utf8").split("\n");
    expect(lines).toContain(`forged01 get ${now}`);
    expect(lines.some((l) => l.includes(String(now + HOUR)))).toBe(false);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});

describe("waits bounded whatever a file says", () => {
  let h: EmulatorWorld | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("a window filled by future-dated lines holds the client one window, not an hour (virtual time)", async () => {
    const dir = privateCacheDir();
    const path = join(dir, "pacing.log");
    const start = Date.UTC(2026, 10, 1);
    const lines = Array.from(
      { length: 100 },
      (_, i) => `forged${String(i).padStart(2, "0")} get ${start + HOUR}`,
    );
    writeFileSync(path, `${lines.join("\n")}\n`, { mode: 0o600 });
    let now = () => start;
    const pacingLog = filePacingLog({ path, now: () => now(), keepMs: 61_000 });
    h = await emulatorWorld({
      seed: seedWithCampaigns(3),
      emulator: { rateLimits: "off" },
      client: {
        pacingLog,
        rateLimits: {
          get: { limit: 100, windowMs: 60_000 },
          write: { limit: 10, windowMs: 60_000 },
          session: { limit: 10, windowMs: 60_000 },
        },
      },
    });
    const clock = h.clock;
    now = () => clock.now();
    const begin = clock.now();
    expect((await h.client.send(Endpoints.getCampaign("5001"))).id).toBe("5001");
    const waits = h.events.filter((e) => e.type === "wait");
    expect(waits.length).toBeGreaterThan(0);
    for (const w of waits) expect(w.type === "wait" && w.waitMs).toBeLessThanOrEqual(61_000);
    expect(clock.now() - begin).toBeLessThan(2 * 60_000);
  });

  it("the system clock's sleep is clamped to the longest timer Node sets: no TimeoutOverflowWarning, no spin", async () => {
    const warnings: Error[] = [];
    const listen = (w: Error) => warnings.push(w);
    process.on("warning", listen);
    try {
      const controller = new AbortController();
      let woke = false;
      const far = systemClock.sleep(2 ** 40, controller.signal).then(() => {
        woke = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(woke).toBe(false);
      controller.abort(new Error("stop"));
      await expect(far).rejects.toThrow("stop");
      expect(warnings.filter((w) => w.name === "TimeoutOverflowWarning")).toEqual([]);
      expect(MAX_TIMER_MS).toBe(2 ** 31 - 1);
    } finally {
      process.off("warning", listen);
    }
  });
});
