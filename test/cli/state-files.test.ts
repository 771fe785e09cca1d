/**
 * The state files a run reads, as a hostile user or a stepped-back clock leaves them
 * (src/api/private-files.ts, docs/api-client.md): a forged or foreign session cache must not
 * move a plan to another account's recovery record, a state directory others can write must
 * not hide it, and a future-dated pacing log must not hold a plan. Through `run()` against the
 * emulator, the campaign's state on the DSP checked at the end.
 */
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pacingLogPath } from "../../src/api/pacing-log.js";
import { accountKey, RecoveryStore } from "../../src/apply/recovery.js";
import { run } from "../../src/cli/program.js";
import { seedCampaign, seedIo, VENUES_A } from "../helpers/builders.js";
import { type CliAccount, startCliAccount } from "../helpers/cli-account.js";
import { deadPid } from "../helpers/dead-pid.js";
import { bufferIO } from "../helpers/io.js";
import { OTHER_ACCOUNT_USER, USER } from "../helpers/users.js";
import { dspWrites } from "../helpers/world.js";

let account: CliAccount | undefined;
afterEach(async () => {
  await account?.close();
  account = undefined;
});

async function cli(args: string[], env: Record<string, string>, dir: string) {
  const io = bufferIO({ env, cwd: dir });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

/** Campaign 5001 left paused by an apply that was killed: its record names account 1. */
async function afterKilledApply() {
  account = await startCliAccount({
    users: [USER, OTHER_ACCOUNT_USER],
    campaigns: [seedCampaign("5001", "1001", "Malls", { active: false })],
    seed: { insertion_orders: [seedIo("1001")], targetings: { "5001": [VENUES_A] } },
    configOrders: ['  - id: "1001"', "    campaigns:", "      - name: Malls"],
    prefix: "doohctl-state-files-",
  });
  const { emulator, dir } = account;
  const env = { ...account.env, DOOHCTL_STATE_DIR: join(dir, "state") };
  const scope = { origin: emulator.origin, environment: "production", account_id: USER.account_id };
  const apply = new RecoveryStore(env.DOOHCTL_STATE_DIR, scope).begin("2026-11-23T10:00:00.000Z");
  apply.add([
    { campaign_id: "5001", insertion_order_id: "1001", name: "Malls", paused_at: "2026-11-23T10:00:01.000Z" },
  ]);
  apply.end();
  const records = join(env.DOOHCTL_STATE_DIR, "recovery", accountKey(scope));
  for (const name of readdirSync(records)) {
    const path = join(records, name);
    const file = JSON.parse(readFileSync(path, "utf8"));
    const lease = { host: hostname(), pid: deadPid(), renewed_at: new Date().toISOString() };
    writeFileSync(path, JSON.stringify({ ...file, lease }));
  }
  const cacheDir = join(dir, ".cache", "doohctl");
  return {
    dir,
    env,
    cacheDir,
    active: () => emulator.state().campaigns.find((c) => c.id === "5001")?.active,
  };
}

/**
 * The session cache a plan just wrote, rewritten to name another account (token still good,
 * unless `edit` says otherwise); its mode, 0600, is kept.
 */
function forgeCache(cacheDir: string, edit: Record<string, unknown> = { accountId: "999" }): string {
  const [name] = readdirSync(cacheDir).filter((n) => n.startsWith("session-"));
  const path = join(cacheDir, name!);
  const file = JSON.parse(readFileSync(path, "utf8"));
  writeFileSync(path, JSON.stringify({ ...file, ...edit }));
  return path;
}

/** A real session token of OTHER_ACCOUNT_USER (account 2), from the DSP's login answer. */
async function otherAccountToken(origin: string): Promise<string> {
  const reply = await fetch(`${origin}/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: OTHER_ACCOUNT_USER.email, password: OTHER_ACCOUNT_USER.password }),
  });
  const cookie = reply.headers.get("set-cookie") ?? "";
  const token = /tr-production=([^;]+)/.exec(cookie)?.[1];
  if (token === undefined) throw new Error(`no session for ${OTHER_ACCOUNT_USER.email}: ${reply.status}`);
  return token;
}

describe("a forged session cache cannot hide a killed apply's paused campaign", () => {
  it("a cache file open to others is ignored with a warning: the plan still reports DOOH202", async () => {
    const w = await afterKilledApply();
    expect((await cli(["plan"], w.env, w.dir)).out).toMatch(/DOOH202/);
    const path = forgeCache(w.cacheDir);
    chmodSync(path, 0o644);
    const plan = await cli(["plan", "--detailed-exitcode"], w.env, w.dir);
    expect(plan.code, plan.err).toBe(2);
    expect(plan.out).toMatch(/DOOH202.*campaign 5001 "Malls"/);
    expect(plan.err).toContain(`session cache not used, logging in afresh: ${path} is mode 644`);
    expect(plan.err).toContain(`run: chmod 600 ${path}`);
    expect(w.active()).toBe(false);
    expect(dspWrites(account!.emulator)).toEqual([]);
  });

  it("a cache directory others can write (0777) refuses the run, naming it and the fix, before any request", async () => {
    const w = await afterKilledApply();
    expect((await cli(["plan", "--detailed-exitcode"], w.env, w.dir)).code).toBe(2);
    forgeCache(w.cacheDir);
    chmodSync(w.cacheDir, 0o777);
    const before = account!.emulator.requestLog().length;
    for (const args of [["plan", "--detailed-exitcode"], ["status"]]) {
      const refused = await cli(args, w.env, w.dir);
      expect(refused.code).toBe(1);
      expect(refused.err).toContain(`${w.cacheDir} has mode 777`);
      expect(refused.err).toContain(`run: chmod 700 ${w.cacheDir}`);
      expect(refused.out).not.toMatch(/no changes|alerts none/i);
    }
    expect(account!.emulator.requestLog().length).toBe(before);
    expect(w.active()).toBe(false);
    // Without the cache the plan reports the campaign, as before.
    const plain = await cli(["plan", "--detailed-exitcode", "--no-session-cache"], w.env, w.dir);
    expect(plain.code, plain.err).toBe(2);
    expect(plain.out).toMatch(/DOOH202/);
  });
});

describe("a session cache of another account cannot hide a killed apply's paused campaign", () => {
  it.each([
    ["naming account 2 (mode 0600 kept)", async () => ({ accountId: OTHER_ACCOUNT_USER.account_id })],
    [
      "holding a real token of account 2's user",
      async () => ({
        accountId: OTHER_ACCOUNT_USER.account_id,
        token: await otherAccountToken(account!.emulator.origin),
      }),
    ],
  ])(
    "a cache %s: plan reports DOOH202 and discards the cache with a warning; apply --restore-only reactivates the campaign",
    async (_, forged) => {
      const w = await afterKilledApply();
      expect((await cli(["plan"], w.env, w.dir)).code).toBe(0);
      const path = forgeCache(w.cacheDir, await forged());
      const from = account!.emulator.requestLog().length;
      const plan = await cli(["plan", "--detailed-exitcode"], w.env, w.dir);
      expect(plan.code, plan.err).toBe(2);
      expect(plan.out).toMatch(/DOOH202.*campaign 5001 "Malls"/);
      expect(plan.err).toContain(
        `session cache discarded: ${path} named account 2, the DSP's login answer names account 1 (G9)`,
      );
      forgeCache(w.cacheDir, await forged());
      const restore = await cli(["apply", "--restore-only"], w.env, w.dir);
      expect(restore.code, restore.err).toBe(0);
      expect(restore.out).toMatch(/Recovery record: reactivated 1 campaign[^\n]*\n {2}campaign 5001 "Malls"/);
      expect(w.active()).toBe(true);
      expect(dspWrites(account!.emulator)).toEqual([
        expect.objectContaining({ body: { campaigns: [{ id: "5001", active: true }] } }),
      ]);
      // Every request of both runs went as this run's own user, none with the cache's token.
      const users = account!.emulator
        .requestLog()
        .slice(from)
        .filter((e) => e.path !== "/api/session")
        .map((e) => e.user);
      expect(new Set(users)).toEqual(new Set([USER.email]));
    },
  );
});

describe("a state directory others can write cannot hide a killed apply's paused campaign", () => {
  it.each(["DOOHCTL_STATE_DIR", "~/.local/state/doohctl"])(
    "%s at 0777: plan, status, apply and apply --restore-only refuse, naming it and the chmod, before any request",
    async (where) => {
      const w = await afterKilledApply();
      let env: Record<string, string> = w.env;
      let state = w.env.DOOHCTL_STATE_DIR;
      if (where !== "DOOHCTL_STATE_DIR") {
        const { DOOHCTL_STATE_DIR: _, ...rest } = w.env;
        state = join(w.dir, ".local", "state", "doohctl");
        mkdirSync(join(state, ".."), { recursive: true, mode: 0o700 });
        renameSync(w.env.DOOHCTL_STATE_DIR, state);
        env = rest;
      }
      chmodSync(state, 0o777);
      const before = account!.emulator.requestLog().length;
      for (const args of [
        ["plan", "--detailed-exitcode"],
        ["status"],
        ["apply", "--auto-approve"],
        ["apply", "--restore-only"],
      ]) {
        const refused = await cli(args, env, w.dir);
        expect(refused.code, args.join(" ")).toBe(1);
        expect(refused.err).toContain(
          `${state} has mode 777: group or others could read or plant the recovery record; run: chmod 700 ${state}`,
        );
        expect(refused.out).not.toMatch(/no changes|alerts none|no campaign recorded as paused/i);
      }
      expect(account!.emulator.requestLog().length).toBe(before);
      expect(w.active()).toBe(false);
      // Fixed as the message says, the record is read again and the campaign restored.
      chmodSync(state, 0o700);
      const restore = await cli(["apply", "--restore-only"], env, w.dir);
      expect(restore.code, restore.err).toBe(0);
      expect(w.active()).toBe(true);
    },
  );

  it("a link in place of the state directory is refused the same way, and the directory it names is left alone", async () => {
    const w = await afterKilledApply();
    const link = join(w.dir, "state-link");
    symlinkSync(w.env.DOOHCTL_STATE_DIR, link);
    const plan = await cli(["plan", "--detailed-exitcode"], { ...w.env, DOOHCTL_STATE_DIR: link }, w.dir);
    expect(plan.code).toBe(1);
    expect(plan.err).toContain(`${link} is a symbolic link`);
    expect(plan.err).toContain("set DOOHCTL_STATE_DIR to another absolute path");
    expect(w.active()).toBe(false);
    expect((await cli(["plan", "--detailed-exitcode"], w.env, w.dir)).out).toMatch(/DOOH202/);
  });
});

describe("a cache directory that merely cannot be used", () => {
  it("is no refusal: the plan goes on without the cache, with a warning naming the fix", async () => {
    const w = await afterKilledApply();
    // XDG_CACHE_HOME names a file: nothing another user could plant, only a cache that cannot be.
    const notADir = join(w.dir, "not-a-dir");
    writeFileSync(notADir, "");
    const plan = await cli(["plan", "--detailed-exitcode"], { ...w.env, XDG_CACHE_HOME: notADir }, w.dir);
    expect(plan.code, plan.err).toBe(2);
    expect(plan.out).toMatch(/DOOH202/);
    expect(plan.err).toMatch(
      /session cache not used, logging in afresh: cannot use .*ENOTDIR.*--no-session-cache/,
    );
  });
});

describe("a pacing log dated in the future does not hold a plan", () => {
  /** The account with the client's GET window at 3 a second, so a filled window shows at once. */
  async function smallWindow() {
    const w = await afterKilledApply();
    const config = join(w.dir, "doohctl.yaml");
    writeFileSync(config, readFileSync(config, "utf8").replace(/get: 1000\/60s/, "get: 3/1s"));
    const path = pacingLogPath(w.cacheDir, {
      origin: account!.emulator.origin,
      environment: "production",
      email: USER.email,
    });
    return { ...w, path };
  }

  it.each([
    ["an hour ahead", Date.now() + 60 * 60 * 1000],
    ["far ahead (past the longest timer)", 8.64e15],
  ])(
    "lines %s count as now: the plan waits at most its window, with no TimeoutOverflowWarning",
    async (_, at) => {
      const w = await smallWindow();
      writeFileSync(w.path, ["forged01", "forged02", "forged03"].map((r) => `${r} get ${at}\n`).join(""), {
        mode: 0o600,
      });
      const warnings: Error[] = [];
      const listen = (warning: Error) => warnings.push(warning);
      process.on("warning", listen);
      const started = Date.now();
      try {
        const plan = await cli(["plan", "--detailed-exitcode", "--max-wait", "5"], w.env, w.dir);
        expect(plan.code, plan.err).toBe(2);
        expect(plan.out).toMatch(/DOOH202/);
        expect(plan.err).not.toMatch(/waiting \d+h/);
      } finally {
        process.off("warning", listen);
      }
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(warnings.map((w) => w.name)).not.toContain("TimeoutOverflowWarning");
    },
  );

  it("a link planted at the log's path refuses the run and gets no line appended", async () => {
    const w = await smallWindow();
    const victim = join(w.dir, "unrelated.txt");
    writeFileSync(victim, "untouched\n");
    const { symlinkSync } = await import("node:fs");
    symlinkSync(victim, w.path);
    const plan = await cli(["plan"], w.env, w.dir);
    expect(plan.code).toBe(1);
    expect(plan.err).toContain(`the pacing log ${w.path} is a symbolic link, never followed`);
    expect(readFileSync(victim, "utf8")).toBe("untouched\n");
  });
});
