/**
 * The kill loop (docs/safety.md, Restoration without local state): the built `doohctl apply`
 * is killed with SIGKILL again and again while it has campaigns paused for a targeting change,
 * as users run it: `active` declared on some campaigns and left out on others, two state
 * directories (DOOHCTL_STATE_DIR: two machines, or a CI cache and a laptop), one cache
 * directory shared by both (XDG_CACHE_HOME: session cache, pacing log). After each kill the
 * next plain run of the same state directory ends with every campaign active and none twice;
 * where every campaign declares `active: true`, so does a run of the other state directory,
 * which has no record of the pause. Each round alternates the desired venues, so every round
 * pauses every campaign again; the kill lands after a seeded number of writes past the pause.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { seededRandom } from "../../src/model/random.js";
import { PUBLISHERS, seedCampaign, VENUES_A } from "../helpers/builders.js";
import { accountConfig, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { USER } from "../helpers/users.js";
import { ensureBuilt, spawnCli } from "./binary.js";
import { duplicateNames, LONG } from "./world.js";

const IDS = ["5001", "5002", "5003", "5004"];
/** The campaigns whose config leaves `active` out (in the mixed config). */
const UNDECLARED = new Set(["5002", "5004"]);
const VENUE_SETS = [
  ["101", "102"],
  ["103", "104"],
];

let emulator: RunningEmulator;
let root: string;

beforeAll(async () => {
  ensureBuilt();
  emulator = (
    await startCliAccount({
      systemTime: true,
      campaigns: IDS.map((id) => seedCampaign(id, "1001", `Campaign ${id}`, { active: true })),
      seed: { targetings: Object.fromEntries(IDS.map((id) => [id, [VENUES_A, PUBLISHERS]])) },
    })
  ).emulator;
  root = mkdtempSync(join(tmpdir(), "doohctl-kill-loop-"));
}, 240_000);

afterAll(async () => {
  await emulator.close();
});

/** The config lines: every campaign on `venues`, `active: true` declared unless `undeclared` has it. */
function orders(venues: readonly string[], undeclared: ReadonlySet<string>): string[] {
  return [
    '  - id: "1001"',
    "    campaigns:",
    ...IDS.flatMap((id) => [
      `      - name: Campaign ${id}`,
      ...(undeclared.has(id) ? [] : ["        active: true"]),
      `        targetings: [{ venue_targeting_option: { venue_targeting_ids: ${JSON.stringify(venues)} } }]`,
    ]),
  ];
}

type Machine = "a" | "b";

/** One state directory and runtime directory per machine; the cache directory shared. */
function machineEnv(machine: Machine): Record<string, string> {
  const home = join(root, machine);
  mkdirSync(home, { recursive: true });
  return {
    DOOHCTL_EMAIL: USER.email,
    DOOHCTL_PASSWORD: USER.password,
    HOME: home,
    XDG_RUNTIME_DIR: join(home, "run"),
    DOOHCTL_STATE_DIR: join(home, "state"),
    XDG_CACHE_HOME: join(root, "shared-cache"),
  };
}

const pauses = (body: unknown) =>
  ((body as { campaigns?: { active?: boolean }[] } | undefined)?.campaigns ?? []).some(
    (c) => c.active === false,
  );

/**
 * One round: `doohctl apply` of `machine` killed `after` writes past its first pause. Returns
 * the campaigns the kill left inactive.
 */
async function killedApply(machine: Machine, after: number): Promise<string[]> {
  const child = spawnCli(["apply", "--auto-approve"], { cwd: root, env: machineEnv(machine) });
  let paused = false;
  let writes = 0;
  const off = emulator.onWrite((entry) => {
    if (entry.method === "PATCH" && pauses(entry.body)) paused = true;
    if (paused && writes++ === after) child.process.kill("SIGKILL");
  });
  const ended = await child.exited;
  off();
  expect(ended, child.stderr()).toBe("SIGKILL");
  return emulator
    .state()
    .campaigns.filter((c) => !c.active)
    .map((c) => c.id);
}

async function plainApply(machine: Machine): Promise<void> {
  const io = bufferIO({ cwd: root, env: machineEnv(machine) });
  expect(await run(["apply", "--auto-approve"], io), io.out() + io.err()).toBe(0);
}

function expectAllActiveOnce(round: string): void {
  const state = emulator.state();
  expect(
    state.campaigns.filter((c) => !c.active).map((c) => c.id),
    `${round}: left inactive`,
  ).toEqual([]);
  expect(state.campaigns.map((c) => c.id).sort(), round).toEqual(IDS);
  expect(duplicateNames(state), round).toEqual([]);
}

/**
 * `rounds` kills. Even rounds: `active` left out on half the campaigns, recovered by the same
 * machine's next plain run (its record). Odd rounds: `active: true` on every campaign,
 * recovered by the other machine, which has no record of the pause.
 */
async function killLoop(rounds: number, seed: number): Promise<void> {
  const random = seededRandom(seed);
  for (let round = 0; round < rounds; round++) {
    const machine: Machine = round % 4 < 2 ? "a" : "b";
    const declaredAll = round % 2 === 1;
    const venues = VENUE_SETS[round % 2]!;
    writeFileSync(
      join(root, "doohctl.yaml"),
      accountConfig(emulator.origin, orders(venues, declaredAll ? new Set() : UNDECLARED)),
    );
    const after = Math.floor(random() * 3);
    const dark = await killedApply(machine, after);
    const label = `round ${round} (machine ${machine}, ${declaredAll ? "active declared" : "active undeclared on half"}, killed ${after} writes after the pause)`;
    // The kill left campaigns paused, or the round proved nothing.
    expect(dark.length, label).toBeGreaterThan(0);
    await plainApply(declaredAll ? (machine === "a" ? "b" : "a") : machine);
    expectAllActiveOnce(label);
  }
}

describe("the kill loop: SIGKILL while campaigns are paused", () => {
  it("four kills, two machines, one cache: every campaign active again, none twice", async () => {
    await killLoop(4, 1);
  }, 120_000);
});

describe.runIf(LONG)("the kill loop, long: 24 kills", () => {
  it("every kill ends with every campaign active, none twice", { timeout: 600_000 }, async () => {
    await killLoop(24, 2);
  });
});
