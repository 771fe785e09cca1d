/**
 * Two applies of one new campaign at once (ARCHITECTURE.md#apply-order-and-invariants; lock.ts,
 * guard.ts). On one machine (one state directory) the apply lock serializes them: the second
 * waits, and its check by name before POST /campaigns finds the first one's campaign, so it
 * sends no POST. On two machines (two state directories, no shared lock) the check by name is
 * the only guard: it holds whenever the other apply's POST landed before this one's check.
 * It cannot hold when both checks come before both POSTs (a window of one request's time):
 * the API has no idempotency key or unique name (G3), so that case is not claimed here.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { DspClient } from "../../src/api/types.js";
import { applyPlan } from "../../src/apply/execute.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { placeText } from "../../src/model/calendar.js";
import { ADVERTISER, desiredCampaign, desiredIo, desiredState, seedIo } from "../helpers/builders.js";
import { accountConfig, loginEnv, startCliAccount } from "../helpers/cli-account.js";
import { usd } from "../helpers/money.js";
import { interceptingProxy, relay } from "../helpers/proxy.js";
import { USER } from "../helpers/users.js";
import { colleagueClient, type EmulatorWorld, emulatorWorld } from "../helpers/world.js";
import { ensureBuilt, spawnCli } from "./binary.js";
import { duplicateNames } from "./world.js";

beforeAll(() => ensureBuilt(), 180_000);

let emulator: RunningEmulator | undefined;
let world: EmulatorWorld | undefined;
let second: DspClient | undefined;
afterEach(async () => {
  await emulator?.close();
  await second?.close();
  await world?.close();
  emulator = undefined;
  second = undefined;
  world = undefined;
});

const CONFIG_LINES = [
  '  - id: "1001"',
  "    campaigns:",
  "      - name: Launch",
  "        active: true",
  "        start_time: 2026-12-15T00:00:00Z",
  "        end_time: 2027-01-15T00:00:00Z",
  "        budget_impressions: 10000",
  "        cpm: 9 USD",
];

/**
 * A proxy in front of the emulator that holds every POST /campaigns until `release` is
 * called, or until two are held (two applies both past their checks: the duplicate shows).
 */
async function holdingPosts(
  origin: string,
): Promise<{ origin: string; release(): void; close(): Promise<void> }> {
  const held: (() => void)[] = [];
  let released = false;
  const release = () => {
    released = true;
    for (const go of held.splice(0)) go();
  };
  const proxy = await interceptingProxy(origin, {
    onRequest: (req, res, forward) => {
      const pass = () => void forward().then((answer) => relay(answer, res));
      if (req.method === "POST" && req.url?.endsWith("/campaigns") && !released) {
        held.push(pass);
        if (held.length >= 2) release();
        return;
      }
      pass();
    },
  });
  return { ...proxy, release };
}

describe("two applies of one new campaign on one machine", () => {
  it("create it once: the second waits for the lock, then finds its plan stale and sends no POST", async () => {
    emulator = (
      await startCliAccount({
        systemTime: true,
        seed: { users: [USER], advertisers: [ADVERTISER], insertion_orders: [seedIo("1001")] },
      })
    ).emulator;
    // The first apply's POST waits until the second has planned the same creation and is
    // waiting for the lock: the interleaving in which two applies would both create it.
    const proxy = await holdingPosts(emulator.origin);
    try {
      const home = mkdtempSync(join(tmpdir(), "doohctl-two-"));
      // The seed is placed at today (systemTime): the config's dates move with it.
      const config = placeText(accountConfig(proxy.origin, CONFIG_LINES), emulator.placedDays);
      writeFileSync(join(home, "doohctl.yaml"), config);
      const env = { ...loginEnv(USER, home), DOOHCTL_STATE_DIR: join(home, "state") };
      const [a, b] = [0, 1].map(() => spawnCli(["apply", "--auto-approve"], { cwd: home, env }));
      for (const child of [a!, b!]) {
        child.process.stderr?.on("data", (chunk: Buffer) => {
          if (chunk.toString().includes("waiting for another apply of this account")) proxy.release();
        });
      }
      const codes = await Promise.all([a!.exited, b!.exited]);
      const stderr = a!.stderr() + b!.stderr();

      const state = emulator.state();
      expect(
        state.campaigns.filter((c) => c.name === "Launch"),
        stderr,
      ).toHaveLength(1);
      expect(duplicateNames(state)).toEqual([]);
      const posts = emulator.requestLog().filter((e) => e.method === "POST" && e.path.endsWith("/campaigns"));
      expect(posts).toHaveLength(1);
      // One applied; the other had planned the creation too, waited, and stopped before its POST.
      expect([...codes].sort(), stderr).toEqual([0, 1]);
      expect(stderr).toContain("waiting for another apply of this account");
      // After its wait it judges its plan again: the campaign exists now, so the plan is stale.
      expect(stderr).toMatch(/plan is stale: another apply of this account ran while this one waited/);
    } finally {
      await proxy.close();
    }
  });
});

describe("two applies of one new campaign on two machines", () => {
  it("create it once when the second's check by name follows the first's POST", async () => {
    world = await emulatorWorld({ seed: { insertion_orders: [seedIo("1001")] } });
    const desired = desiredState([
      desiredIo("1001", {
        campaigns: [
          desiredCampaign("Launch", {
            fields: {
              active: true,
              start_time: "2026-12-15T00:00:00Z",
              end_time: "2027-01-15T00:00:00Z",
              budget_impressions: 10_000,
              cpm: usd("9"),
            },
            line: "next",
          }),
        ],
        line: "next",
      }),
    ]);
    // Both plan the creation before either writes; nothing on disk is shared.
    const first = await world.plan(desired);
    const secondPlan = await world.plan(desired);
    second = colleagueClient(world.emulator.origin, USER, world.clock);
    expect((await applyPlan({ plan: first, client: world.client, clock: world.clock })).status).toBe(
      "applied",
    );
    const result = await applyPlan({ plan: secondPlan, client: second, clock: world.clock });

    expect(result.status).toBe("failed");
    expect(result.failure?.code).toBe("APPLY_CONCURRENT_CHANGE");
    expect(result.failure?.message).toMatch(/campaign "Launch" of insertion order 1001 exists \(id \d+\)/);
    expect(world.emulator.state().campaigns.filter((c) => c.name === "Launch")).toHaveLength(1);
    expect(
      world.emulator.requestLog().filter((e) => e.method === "POST" && e.path.endsWith("/campaigns")),
    ).toHaveLength(1);
  });
});
