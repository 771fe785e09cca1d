/**
 * Per account, nothing shared by accident (docs/safety.md, Keeping two
 * accounts apart). Two configured accounts meet where they could collide most: one DSP, one
 * origin and environment, one G9 account_id, two API users, one HOME (so one state directory,
 * one session cache directory, one lock directory). The built CLI is killed with SIGKILL in
 * each account's apply in turn; the other account's recovery record, session cache and pacing
 * log are byte for byte what they were, each account's next plan reactivates only its own
 * campaigns, and one account's apply lock never holds up the other's apply.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquireApplyLock, applyLockDir } from "../../src/apply/lock.js";
import { accountKey } from "../../src/apply/recovery.js";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { systemClock } from "../../src/model/clock.js";
import { accountEnv, writeAccount } from "../helpers/accounts-repo.js";
import { PUBLISHERS, seedCampaign, seedIo, VENUES_A } from "../helpers/builders.js";
import { type CliAccountOptions, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { USER } from "../helpers/users.js";
import { ensureBuilt, spawnCli } from "../proof/binary.js";

/** Two API users of one DSP account (account_id 1): the apply tests' user, renamed. */
const userOf = (name: string) => ({
  ...USER,
  email: `${name}@doohctl.test`,
  password: `${USER.password}-${name}`,
});

const ACCOUNTS = {
  north: { io: "1001", campaigns: ["N1", "N2", "N3"], firstId: 5001 },
  south: { io: "1002", campaigns: ["S1", "S2", "S3"], firstId: 6001 },
} as const;
type Name = keyof typeof ACCOUNTS;

let emulator: RunningEmulator;
let root: string;
let env: Record<string, string>;

beforeAll(async () => {
  ensureBuilt();
  const campaigns = Object.values(ACCOUNTS).flatMap((a) =>
    a.campaigns.map((name, i) => seedCampaign(String(a.firstId + i), a.io, name, { active: true })),
  );
  emulator = await accountEmulator([userOf("north"), userOf("south")], campaigns, {
    insertion_orders: [seedIo("1001"), seedIo("1002")],
    targetings: Object.fromEntries(campaigns.map((c) => [c.id, [VENUES_A, PUBLISHERS]])),
  });
  root = mkdtempSync(join(tmpdir(), "doohctl-accounts-isolation-"));
  env = { HOME: root, XDG_RUNTIME_DIR: join(root, "run") };
  for (const [name, account] of Object.entries(ACCOUNTS)) {
    // `active` left out and the publisher exclusion dropped: each apply pauses, puts, reactivates.
    writeAccount(root, name, [
      `  - id: "${account.io}"`,
      "    campaigns:",
      ...account.campaigns.flatMap((c) => [
        `      - name: ${c}`,
        '        targetings: [{ venue_targeting_option: { venue_targeting_ids: ["101", "102"] } }]',
      ]),
    ]);
    Object.assign(env, accountEnv(name, emulator.origin, userOf(name)));
  }
}, 240_000);

afterAll(async () => {
  await emulator.close();
});

const inactive = () =>
  emulator
    .state()
    .campaigns.filter((c) => !c.active)
    .map((c) => c.name)
    .sort();

const scope = (name: Name) => ({
  origin: emulator.origin,
  environment: "production",
  account_id: USER.account_id,
  account: name,
});

/** Every file of `name`'s own state: its recovery record, its session cache and pacing log. */
function stateOf(name: Name): Record<string, string> {
  const dirs = [
    join(root, ".local", "state", "doohctl", "recovery", accountKey(scope(name))),
    join(root, ".cache", "doohctl", "accounts", name),
  ];
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else files[relative(root, path)] = createHash("sha256").update(readFileSync(path)).digest("hex");
    }
  };
  for (const dir of dirs) walk(dir);
  return files;
}

/** The built CLI's apply of `name`, SIGKILLed right after its first pause landed. */
async function killedApply(name: Name): Promise<void> {
  let killed = false;
  const child = spawnCli(["apply", `accounts/${name}`, "--auto-approve"], { cwd: root, env });
  const off = emulator.onWrite((entry) => {
    const pauses = JSON.stringify(entry.body ?? "").includes('"active":false');
    if (!killed && entry.method === "PATCH" && pauses) {
      killed = true;
      child.process.kill("SIGKILL");
    }
  });
  try {
    expect(await child.exited, child.stderr()).toBe("SIGKILL");
  } finally {
    off();
  }
}

async function plan(name: Name): Promise<string> {
  const io = bufferIO({ env, cwd: root });
  expect(await run(["plan", `accounts/${name}`], io), io.err()).toBe(0);
  return io.out() + io.err();
}

describe("two accounts on one origin, environment and DSP account, with one HOME", () => {
  it("a kill in one account's apply leaves the other account's state untouched", async () => {
    await plan("south");
    await killedApply("south");
    expect(inactive()).toEqual(["S1", "S2", "S3"]);
    const south = stateOf("south");
    // South's own record, session and pacing log exist: there is something to leave untouched.
    expect(Object.keys(south).some((f) => f.includes("recovery"))).toBe(true);
    expect(Object.keys(south).some((f) => /session-.*\.json$/.test(f))).toBe(true);
    expect(Object.keys(south).some((f) => /pacing-.*\.log$/.test(f))).toBe(true);

    await killedApply("north");
    expect(inactive()).toEqual(["N1", "N2", "N3", "S1", "S2", "S3"]);
    expect(stateOf("south")).toEqual(south);
    expect(Object.keys(stateOf("north")).some((f) => f.includes("recovery"))).toBe(true);
    // Nothing of either account in the single account's places.
    const cache = readdirSync(join(root, ".cache", "doohctl"));
    expect(cache.filter((f) => f !== "accounts")).toEqual([]);

    // Each account's next plan reactivates its own campaigns, and names none of the other's.
    const northPlan = await plan("north");
    expect(northPlan).toContain("DOOH202");
    expect(northPlan).not.toMatch(/S[123]\b/);
    const southPlan = await plan("south");
    expect(southPlan).toContain("DOOH202");
    expect(southPlan).not.toMatch(/N[123]\b/);
  });

  it("one account's apply lock does not hold up the other's apply", async () => {
    const lock = await acquireApplyLock({
      dir: applyLockDir(env),
      scope: scope("north"),
      clock: systemClock,
    });
    try {
      const io = bufferIO({ env, cwd: root });
      expect(await run(["apply", "accounts/south", "--auto-approve"], io), io.err()).toBe(0);
      expect(io.err()).not.toContain("waiting for another apply");
      // South's campaigns are back; north's wait for north's own apply.
      expect(inactive()).toEqual(["N1", "N2", "N3"]);
    } finally {
      lock.release();
    }
    const io = bufferIO({ env, cwd: root });
    expect(await run(["apply", "accounts/north", "--auto-approve"], io), io.err()).toBe(0);
    expect(inactive()).toEqual([]);
  });
});

/** One advertiser, insertion order 1001 and `campaigns` for `users`; `seed` adds or replaces parts. */
async function accountEmulator(
  users: NonNullable<CliAccountOptions["users"]>,
  campaigns: NonNullable<CliAccountOptions["campaigns"]>,
  seed: CliAccountOptions["seed"] = {},
) {
  return (await startCliAccount({ systemTime: true, users, campaigns, seed })).emulator;
}
