/**
 * One apply at a time per account on a machine (src/apply/lock.ts): a lock held by a running
 * process is waited for, a crashed apply's lock is taken over, and Ctrl-C while waiting for
 * the lock ends `doohctl apply` with 130 and nothing sent.
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquireApplyLock } from "../../src/apply/lock.js";
import { accountKey } from "../../src/apply/recovery.js";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { VirtualClock } from "../../src/model/clock.js";
import { seedCampaign } from "../helpers/builders.js";
import { MALLS_RAISED, startCliAccount } from "../helpers/cli-account.js";
import { interruptibleIO } from "../helpers/io.js";
import { dspWrites } from "../helpers/world.js";
import { USER } from "./harness.js";

const SCOPE = { origin: "https://dsp.example.com", environment: "production", user: "ops@example.com" };

function lockPath(stateDir: string, scope = SCOPE): string {
  return join(stateDir, "locks", `${accountKey(scope)}.lock`);
}

function holdLock(stateDir: string, pid: number, scope = SCOPE): void {
  mkdirSync(join(stateDir, "locks"), { recursive: true });
  writeFileSync(
    lockPath(stateDir, scope),
    JSON.stringify({ host: hostname(), pid, started_at: "2026-11-23T10:00:00.000Z" }),
  );
}

function deadPid(): number {
  return Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout);
}

describe("acquireApplyLock", () => {
  it("takes a free lock and releases it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-lock-"));
    const lock = await acquireApplyLock({ stateDir: dir, scope: SCOPE, clock: new VirtualClock() });
    expect(JSON.parse(readFileSync(lockPath(dir), "utf8")).pid).toBe(process.pid);
    lock.release();
    expect(existsSync(lockPath(dir))).toBe(false);
  });

  it("takes over the lock of a crashed apply", async () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-lock-"));
    holdLock(dir, deadPid());
    const waits: unknown[] = [];
    const lock = await acquireApplyLock({
      stateDir: dir,
      scope: SCOPE,
      clock: new VirtualClock({ autoAdvance: true }),
      onWait: (holder) => waits.push(holder),
    });
    expect(waits).toEqual([]);
    expect(JSON.parse(readFileSync(lockPath(dir), "utf8")).pid).toBe(process.pid);
    lock.release();
  });

  it("takes over a lock left by an earlier process with this host name and this pid", async () => {
    // A CI job in a container: the same host name and often the same pid as the killed job.
    const dir = mkdtempSync(join(tmpdir(), "doohctl-lock-"));
    holdLock(dir, process.pid);
    const waits: unknown[] = [];
    const lock = await acquireApplyLock({
      stateDir: dir,
      scope: SCOPE,
      clock: new VirtualClock({ autoAdvance: true }),
      onWait: (holder) => waits.push(holder),
    });
    expect(waits).toEqual([]);
    lock.release();
    expect(existsSync(lockPath(dir))).toBe(false);
  });

  it("waits while a running process holds it, and takes it once released", async () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-lock-"));
    holdLock(dir, process.ppid);
    const clock = new VirtualClock({ autoAdvance: true });
    const waits: { pid: number }[] = [];
    let polls = 0;
    const sleepy = {
      now: () => clock.now(),
      sleep: async (ms: number, signal?: AbortSignal) => {
        // The holder finishes after three polls.
        if (++polls === 3) holdLock(dir, deadPid());
        await clock.sleep(ms, signal);
      },
    };
    const lock = await acquireApplyLock({
      stateDir: dir,
      scope: SCOPE,
      clock: sleepy,
      onWait: (holder) => waits.push(holder),
    });
    expect(waits.map((w) => w.pid)).toEqual([process.ppid]);
    expect(polls).toBe(3);
    lock.release();
  });

  it("keeps accounts apart: another account's held lock does not block", async () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-lock-"));
    holdLock(dir, process.ppid, { ...SCOPE, user: "other@example.com" });
    const lock = await acquireApplyLock({ stateDir: dir, scope: SCOPE, clock: new VirtualClock() });
    lock.release();
  });

  it("stops waiting when aborted", async () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-lock-"));
    holdLock(dir, process.ppid);
    const controller = new AbortController();
    const waiting = acquireApplyLock({
      stateDir: dir,
      scope: SCOPE,
      clock: new VirtualClock({ autoAdvance: true }),
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
    holdLock(state, process.ppid, { origin: emulator.origin, environment: "production", user: USER.email });
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
