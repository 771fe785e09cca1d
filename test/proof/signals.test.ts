/**
 * Stopping the built `doohctl apply` with SIGINT or SIGTERM while campaigns are paused for a
 * targeting change (G5, I1): the first signal sends no further change, reactivates what the
 * apply paused and exits 130 or 143; without a terminal a second one is acknowledged and
 * ignored until delivery is restored (a GitHub runner's whole cancel sequence:
 * runner-cancel.test.ts; a second Ctrl-C on a terminal: test/apply/interrupt.test.ts). The config leaves
 * `active` out, as people do, so only the recovery record knows the campaigns were active.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { bufferIO } from "../helpers/io.js";
import { ensureBuilt, spawnCli } from "./binary.js";
import { CAMPAIGNS, isPause, pausingAccount } from "./paused-account.js";

beforeAll(() => ensureBuilt(), 180_000);

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function account(latencyMs: number) {
  const world = await pausingAccount(latencyMs);
  emulator = world.emulator;
  return world;
}

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
