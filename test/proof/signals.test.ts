/**
 * Stopping the built `doohctl apply` with SIGINT or SIGTERM while campaigns are paused for a
 * targeting change (G5, I1): the first signal sends no further change, reactivates what the
 * apply paused and exits 130 or 143; without a terminal a second one is acknowledged and
 * ignored until delivery is restored (a GitHub runner's whole cancel sequence:
 * runner-cancel.test.ts; a second Ctrl-C on a terminal: test/apply/interrupt.test.ts). The config leaves
 * `active` out, as people do, so only the recovery record knows the campaigns were active.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { ADVERTISER, PUBLISHERS, seedCampaign, seedIo, VENUES_A } from "../helpers/builders.js";
import { accountConfig, loginEnv, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { USER } from "../helpers/users.js";
import { ensureBuilt, spawnCli } from "./binary.js";
import { invariantViolations } from "./world.js";

beforeAll(() => ensureBuilt(), 180_000);

const CAMPAIGNS = ["Malls", "Stations", "Airports"];

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/**
 * Three active campaigns each losing their publisher exclusion: the plan pauses them, puts
 * their targetings one by one, and reactivates them. `latencyMs` slows every request so a
 * signal lands while the apply is still at work.
 */
async function account(latencyMs: number) {
  const running = (
    await startCliAccount({
      seed: {
        users: [USER],
        advertisers: [ADVERTISER],
        insertion_orders: [seedIo("1001")],
        campaigns: CAMPAIGNS.map((name, i) => seedCampaign(String(5001 + i), "1001", name, { active: true })),
        targetings: Object.fromEntries(CAMPAIGNS.map((_, i) => [String(5001 + i), [VENUES_A, PUBLISHERS]])),
      },
      emulator: { latencyMs },
    })
  ).emulator;
  emulator = running;
  const dir = mkdtempSync(join(tmpdir(), "doohctl-signals-"));
  writeFileSync(
    join(dir, "doohctl.yaml"),
    accountConfig(running.origin, [
      '  - id: "1001"',
      "    campaigns:",
      ...CAMPAIGNS.flatMap((name) => [
        `      - name: ${name}`,
        '        targetings: [{ venue_targeting_option: { venue_targeting_ids: ["101", "102"] } }]',
      ]),
    ]),
  );
  const violations: string[] = [];
  let previous = running.state();
  running.onWrite((entry, state) => {
    violations.push(...invariantViolations(previous, state, entry, new Map()));
    previous = state;
  });
  const inactive = () =>
    running
      .state()
      .campaigns.filter((c) => !c.active)
      .map((c) => c.name);
  return { emulator: running, dir, env: loginEnv(USER, dir), violations, inactive };
}

const isPause = (body: unknown) =>
  ((body as { campaigns?: { active?: boolean }[] } | undefined)?.campaigns ?? []).some(
    (c) => c.active === false,
  );

describe.each([
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const)("apply stopped by %s", (signal, code) => {
  it(`reactivates what it paused before it exits ${code}`, async () => {
    const world = await account(20);
    const child = spawnCli(["apply", "--auto-approve"], { cwd: world.dir, env: world.env });
    let putsSeen = 0;
    world.emulator.onWrite((entry) => {
      // The pause landed and one targeting PUT too: the signal comes mid-phase.
      if (entry.method === "PUT" && ++putsSeen === 1) child.process.kill(signal);
    });
    expect(await child.exited, child.stderr()).toBe(code);
    expect(child.stderr()).toContain(
      `${signal}: no further change is sent; reactivating what this apply paused`,
    );
    expect(world.inactive()).toEqual([]);
    // No further targeting PUT after the signal.
    const puts = world.emulator.requestLog().filter((e) => e.method === "PUT");
    expect(puts.length).toBeLessThan(CAMPAIGNS.length);
    expect(world.violations).toEqual([]);

    // The rest converges, and nothing is left in the record.
    const io = bufferIO({ env: world.env, cwd: world.dir });
    expect(await run(["apply", "--auto-approve"], io), io.err()).toBe(0);
    const check = bufferIO({ env: world.env, cwd: world.dir });
    expect(await run(["plan", "--detailed-exitcode"], check), check.out()).toBe(0);
    expect(check.out() + check.err()).not.toContain("DOOH202");
    expect(world.violations).toEqual([]);
  });

  it("without a terminal, acknowledges a second signal, ignores it and still restores delivery", async () => {
    // Slow requests: the restore after the first signal is still reading when the second comes.
    const world = await account(200);
    const child = spawnCli(["apply", "--auto-approve"], { cwd: world.dir, env: world.env });
    world.emulator.onWrite((entry) => {
      if (entry.method === "PATCH" && isPause(entry.body)) child.process.kill(signal);
    });
    child.process.stderr?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("no further change is sent")) child.process.kill(signal);
    });
    expect(await child.exited, child.stderr()).toBe(code);
    expect(child.stderr()).toContain("further signals are ignored until delivery is restored");
    expect(child.stderr()).toContain(`${signal} ignored: reactivating the campaigns this apply paused first`);
    expect(world.inactive()).toEqual([]);

    const check = bufferIO({ env: world.env, cwd: world.dir });
    expect(await run(["plan"], check), check.err()).toBe(0);
    expect(check.out() + check.err()).not.toContain("DOOH202");
    expect(world.violations).toEqual([]);
  });
});
