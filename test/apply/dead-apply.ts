/**
 * The world a dead apply left, for the recovery record's command tests: insertion orders 1001
 * (Malls, paused by the apply) and 1002 (Stations), the record naming Malls, and its lease
 * renewed just now by `owner` (a dead pid, or a live one standing for an apply still running).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { processStart } from "../../src/apply/lease.js";
import { applyLockDir } from "../../src/apply/lock.js";
import { accountKey, RecoveryStore } from "../../src/apply/recovery.js";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { PUBLISHERS, seedCampaign, seedIo, VENUES_A } from "../helpers/builders.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { suiteClock } from "../helpers/suite-clock.js";
import { USER } from "../helpers/users.js";

/**
 * Insertion orders 1001 (Malls, paused by a dead apply) and 1002 (Stations), the config
 * leaving `active` out; `owner` is the pid the record names.
 */
export async function deadApplyWorld(owner: number, malls: string[] = [], stationsIo = "1002") {
  const started = await startCliAccount({
    users: [USER],
    campaigns: [
      seedCampaign("5001", "1001", "Malls", { active: false }),
      seedCampaign("5002", stationsIo, "Stations", { active: true }),
    ],
    seed: {
      insertion_orders: [seedIo("1001"), seedIo("1002")],
      targetings: { "5001": [VENUES_A], "5002": [VENUES_A, PUBLISHERS] },
    },
    configOrders: [
      '  - id: "1001"',
      "    campaigns:",
      "      - name: Malls",
      ...malls,
      ...(stationsIo === "1001" ? [] : ['  - id: "1002"', "    campaigns:"]),
      "      - name: Stations",
    ],
    prefix: "doohctl-recovery-plan-",
  });
  const { emulator, dir } = started;
  const env = { ...started.env, DOOHCTL_STATE_DIR: join(dir, "state") };
  const scope = { origin: emulator.origin, environment: "production", account_id: USER.account_id };
  const store = new RecoveryStore(env.DOOHCTL_STATE_DIR, scope);
  const apply = store.begin("2026-11-23T10:00:00.000Z");
  apply.add([
    {
      campaign_id: "5001",
      insertion_order_id: "1001",
      name: "Malls",
      paused_at: "2026-11-23T10:00:01.000Z",
    },
  ]);
  apply.end();
  const account = join(env.DOOHCTL_STATE_DIR, "recovery", accountKey(scope));
  // The owner's lease, just renewed: `owner` with its real start time (none when it is gone).
  const start = processStart(owner);
  for (const name of readdirSync(account)) {
    const file = JSON.parse(readFileSync(join(account, name), "utf8"));
    const lease = { host: hostname(), pid: owner, renewed_at: new Date(suiteClock.now()).toISOString() };
    writeFileSync(
      join(account, name),
      JSON.stringify({
        ...file,
        lease: { ...lease, ...(typeof start === "string" ? { pid_start: start } : {}) },
      }),
    );
  }
  const emulatorCampaign = (id: string) => emulator.state().campaigns.find((c) => c.id === id);
  const active = (id: string) => emulatorCampaign(id)?.active;
  return { emulator, dir, env, store, account, active, emulatorCampaign };
}

/** A test file's dead-apply worlds: the emulator of each test is closed after it. */
export function deadApplyWorlds() {
  let current: RunningEmulator | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return {
    /** `deadApplyWorld`, its emulator closed after the test. */
    async afterDeadApply(...args: Parameters<typeof deadApplyWorld>) {
      const w = await deadApplyWorld(...args);
      current = w.emulator;
      return w;
    },
    /** Closes `emulator` after the test, like a world's. */
    closeAfter(emulator: RunningEmulator): RunningEmulator {
      current = emulator;
      return emulator;
    },
    /** This test's emulator. */
    emulator(): RunningEmulator {
      if (current === undefined) throw new Error("no dead-apply world was started in this test");
      return current;
    },
  };
}

/** `doohctl ARGS` in `dir` with `env`: its exit code and what it printed. */
export async function cli(args: string[], env: Record<string, string>, dir: string) {
  const io = bufferIO({ env, cwd: dir });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

/**
 * The account's apply lock held by `pid` (a live process standing for another apply), written
 * as doohctl writes it: 0600, the lease renewed now (src/apply/lock.ts).
 */
export function holdApplyLock(env: Record<string, string>, origin: string, pid: number): void {
  const scope = { origin, environment: "production", account_id: USER.account_id };
  const locks = applyLockDir(env);
  mkdirSync(locks, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(locks, `${accountKey(scope)}.lock`),
    JSON.stringify({
      started_at: "2026-11-23T10:00:00.000Z",
      token: "0123456789abcdef",
      lease: {
        host: hostname(),
        pid,
        pid_start: processStart(pid) ?? undefined,
        renewed_at: new Date(suiteClock.now()).toISOString(),
      },
    }),
    // A lock open to others is no holder's (src/api/private-files.ts).
    { mode: 0o600 },
  );
}
