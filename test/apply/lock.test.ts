/**
 * One apply at a time per account on a machine (src/apply/lock.ts): a lock held by a running
 * process is waited for, a crashed apply's lock is taken over, and Ctrl-C while waiting for
 * the lock ends `doohctl apply` with 130 and nothing sent.
 */

import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { processStart } from "../../src/apply/lease.js";
import { acquireApplyLock, applyLockDir } from "../../src/apply/lock.js";
import { accountKey } from "../../src/apply/recovery.js";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { type Clock, VirtualClock } from "../../src/model/clock.js";
import type { RecoveryScope } from "../../src/model/recovery.js";
import { seedCampaign } from "../helpers/builders.js";
import { MALLS_RAISED, startCliAccount } from "../helpers/cli-account.js";
import { deadPid } from "../helpers/dead-pid.js";
import { interruptibleIO } from "../helpers/io.js";
import { suiteClock } from "../helpers/suite-clock.js";
import { USER } from "../helpers/users.js";
import { dspWrites } from "../helpers/world.js";

const SCOPE: RecoveryScope = {
  origin: "https://dsp.example.com",
  environment: "production",
  account_id: "7",
};

function lockDir(): string {
  return join(mkdtempSync(join(tmpdir(), "doohctl-lock-")), "locks");
}

function lockPath(dir: string, scope = SCOPE): string {
  return join(dir, `${accountKey(scope)}.lock`);
}

/** A lock file as a holder writes it: `pid` with its real start time, renewed `renewedAt`. */
function holdLock(dir: string, pid: number, renewedAt: number, scope = SCOPE): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const start = processStart(pid);
  writeFileSync(
    lockPath(dir, scope),
    JSON.stringify({
      started_at: "2026-11-23T10:00:00.000Z",
      token: "0123456789abcdef",
      lease: {
        host: hostname(),
        pid,
        ...(typeof start === "string" ? { pid_start: start } : {}),
        renewed_at: new Date(renewedAt).toISOString(),
      },
    }),
    { mode: 0o600 },
  );
}

const now = () => new VirtualClock({ start: Date.now(), autoAdvance: true });

describe("acquireApplyLock", () => {
  it("takes a free lock, 0600 in a 0700 directory, and releases it", async () => {
    const dir = lockDir();
    const lock = await acquireApplyLock({ dir, scope: SCOPE, clock: now() });
    expect(JSON.parse(readFileSync(lockPath(dir), "utf8")).lease.pid).toBe(process.pid);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(lockPath(dir)).mode & 0o777).toBe(0o600);
    lock.release();
    expect(existsSync(lockPath(dir))).toBe(false);
  });

  it("lives in a per-user place that does not move with DOOHCTL_STATE_DIR", () => {
    const uid = process.getuid?.() ?? "user";
    expect(applyLockDir({ XDG_RUNTIME_DIR: "/run/user/1000", DOOHCTL_STATE_DIR: "/s" })).toBe(
      join("/run/user/1000", "doohctl"),
    );
    expect(applyLockDir({ TMPDIR: "/t", DOOHCTL_STATE_DIR: "/s" })).toBe(join("/t", `doohctl-${uid}`));
    expect(applyLockDir({ TMPDIR: "/t", DOOHCTL_STATE_DIR: "/elsewhere" })).toBe(
      join("/t", `doohctl-${uid}`),
    );
  });

  it("refuses a lock directory open to others, naming the chmod to run", async () => {
    const dir = lockDir();
    mkdirSync(dir, { mode: 0o777 });
    const { chmodSync } = await import("node:fs");
    chmodSync(dir, 0o777);
    await expect(acquireApplyLock({ dir, scope: SCOPE, clock: now() })).rejects.toThrow(`chmod 700 ${dir}`);
  });

  it("takes over the lock of a crashed apply at once, its lease still fresh", async () => {
    const dir = lockDir();
    const clock = now();
    holdLock(dir, deadPid(), clock.now());
    const waits: unknown[] = [];
    const lock = await acquireApplyLock({ dir, scope: SCOPE, clock, onWait: (holder) => waits.push(holder) });
    expect(waits).toEqual([]);
    expect(JSON.parse(readFileSync(lockPath(dir), "utf8")).lease.pid).toBe(process.pid);
    lock.release();
  });

  it("takes over a stale lease whose pid belongs to a live, unrelated process", async () => {
    const dir = lockDir();
    const clock = now();
    holdLock(dir, process.ppid, clock.now() - 31_000);
    const waits: unknown[] = [];
    const lock = await acquireApplyLock({ dir, scope: SCOPE, clock, onWait: (holder) => waits.push(holder) });
    expect(waits).toEqual([]);
    lock.release();
  });

  it("takes over a lock left by an earlier process with this host name and this pid", async () => {
    // A CI job in a container: the same host name and often the same pid as the killed job.
    const dir = lockDir();
    const clock = now();
    holdLock(dir, process.pid, clock.now());
    const waits: unknown[] = [];
    const lock = await acquireApplyLock({ dir, scope: SCOPE, clock, onWait: (holder) => waits.push(holder) });
    expect(waits).toEqual([]);
    lock.release();
    expect(existsSync(lockPath(dir))).toBe(false);
  });

  it("waits while a running process holds it, and takes it once released", async () => {
    const dir = lockDir();
    const clock = now();
    holdLock(dir, process.ppid, clock.now());
    const waits: { pid: number; lease_expires_at: string }[] = [];
    let polls = 0;
    const sleepy: Clock = {
      now: () => clock.now(),
      sleep: async (ms, signal) => {
        // The holder finishes after three polls (the renewal of the taken lock sleeps 5 s).
        if (ms === 1000 && ++polls === 3) holdLock(dir, deadPid(), clock.now());
        await clock.sleep(ms, signal);
      },
    };
    const start = clock.now();
    const lock = await acquireApplyLock({ dir, scope: SCOPE, clock: sleepy, onWait: (h) => waits.push(h) });
    expect(waits.map((w) => w.pid)).toEqual([process.ppid]);
    expect(waits[0]?.lease_expires_at).toBe(new Date(start + 30_000).toISOString());
    expect(polls).toBe(3);
    lock.release();
  });

  it("waits for a holder on another host until its lease, no longer renewed, is stale", async () => {
    const dir = lockDir();
    const clock = now();
    const start = clock.now();
    holdLock(dir, process.ppid, start);
    const file = JSON.parse(readFileSync(lockPath(dir), "utf8"));
    writeFileSync(lockPath(dir), JSON.stringify({ ...file, lease: { ...file.lease, host: "ci-7.example" } }));
    const lock = await acquireApplyLock({ dir, scope: SCOPE, clock });
    expect(clock.now() - start).toBeGreaterThanOrEqual(30_000);
    expect(clock.now() - start).toBeLessThan(32_000);
    lock.release();
  });

  it("renews its lease every 5 s while held", async () => {
    const dir = lockDir();
    const clock = new VirtualClock({ start: Date.now() });
    const lock = await acquireApplyLock({ dir, scope: SCOPE, clock });
    const renewed = () => Date.parse(JSON.parse(readFileSync(lockPath(dir), "utf8")).lease.renewed_at);
    const first = renewed();
    for (let i = 0; i < 3; i++) {
      clock.advance(5_000);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(renewed() - first).toBe(15_000);
    lock.release();
  });

  it("keeps accounts apart: another account's held lock does not block", async () => {
    const dir = lockDir();
    const clock = now();
    const other = { ...SCOPE, account_id: "8" };
    holdLock(dir, process.ppid, clock.now(), other);
    const held = readFileSync(lockPath(dir, other), "utf8");
    const waits: unknown[] = [];
    // Were the locks shared, it would wait for the running holder: stop at the first wait.
    const controller = new AbortController();
    const start = clock.now();
    const lock = await acquireApplyLock({
      dir,
      scope: SCOPE,
      clock,
      signal: controller.signal,
      onWait: (holder) => {
        waits.push(holder);
        controller.abort(new Error("waited for another account's lock"));
      },
    });
    expect(waits).toEqual([]);
    expect(clock.now() - start).toBeLessThan(1_000);
    expect(lockPath(dir)).not.toBe(lockPath(dir, other));
    expect(JSON.parse(readFileSync(lockPath(dir), "utf8")).lease.pid).toBe(process.pid);
    expect(readFileSync(lockPath(dir, other), "utf8"), "the other account's lock is left alone").toBe(held);
    lock.release();
    expect(readFileSync(lockPath(dir, other), "utf8")).toBe(held);
  });

  it("stops waiting when aborted", async () => {
    const dir = lockDir();
    const clock = now();
    holdLock(dir, process.ppid, clock.now());
    const controller = new AbortController();
    const waiting = acquireApplyLock({
      dir,
      scope: SCOPE,
      clock,
      signal: controller.signal,
      onWait: () => controller.abort(new Error("interrupted")),
    });
    await expect(waiting).rejects.toThrow("interrupted");
  });
});

describe("doohctl apply waiting for the lock", () => {
  let emulator: RunningEmulator;
  afterEach(async () => {
    await emulator.close();
  });

  it("on Ctrl-C exits 130, says nothing was sent, and sends nothing", async () => {
    const account = await startCliAccount({
      users: [USER],
      campaigns: [seedCampaign("5001", "1001", "Malls")],
      configOrders: MALLS_RAISED,
      prefix: "doohctl-lock-cli-",
    });
    emulator = account.emulator;
    const { dir, env } = account;
    const state = join(dir, "state");
    holdLock(applyLockDir(env), process.ppid, suiteClock.now(), {
      origin: emulator.origin,
      environment: "production",
      account_id: USER.account_id,
    });
    const { io } = interruptibleIO({
      env: { ...env, DOOHCTL_STATE_DIR: state },
      cwd: dir,
      pressWhen: (text) => text.includes("waiting for another apply"),
    });
    expect(await run(["apply", "--auto-approve", "--no-session-cache"], io), io.err()).toBe(130);
    expect(io.err()).toMatch(/nothing was sent/);
    expect(dspWrites(emulator)).toEqual([]);
  });
});
