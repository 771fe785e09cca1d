/**
 * Pacing across runs: two full plans back to back, each its own client (its own run), against
 * the emulator at the published GET window (100/60s) on one virtual clock. With the shared
 * request log the second run waits for the slots the first one filled and draws no 429.
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { configFiles, generateScenario } from "../../bench/scenario.js";
import { createDspClient } from "../../src/api/client.js";
import { filePacingLog } from "../../src/api/pacing-log.js";
import { loadConfig } from "../../src/config/load.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { VirtualClock } from "../../src/model/clock.js";
import { PUBLISHED_RATE_LIMITS } from "../../src/model/limits.js";
import { seededRandom } from "../../src/model/random.js";
import { readLiveState } from "../../src/plan/read.js";
import { USER } from "../helpers/users.js";
import { type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

// 1 insertion order, 2 campaign pages, 150 targetings, the creatives: about 155 GETs a plan.
const scenario = generateScenario({
  insertionOrders: 1,
  campaignsPerOrder: 150,
  creativesPerOrder: 2,
  seed: 3,
});

let world: EmulatorWorld | undefined;
let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
  emulator = undefined;
});

async function twoPlans(shared: boolean) {
  const clock = new VirtualClock({ autoAdvance: true, start: Date.parse("2026-11-01T00:00:00Z") });
  world = await emulatorWorld({
    seed: { ...scenario.live, users: [USER] },
    clock,
    emulator: { rateLimits: PUBLISHED_RATE_LIMITS },
  });
  emulator = world.emulator;
  const dir = mkdtempSync(join(tmpdir(), "doohctl-pacing-"));
  writeFileSync(join(dir, "doohctl.yaml"), configFiles(scenario, 1)[0]!.text);
  const desired = await loadConfig([], { cwd: dir });
  const log = join(dir, "pacing.log");
  // Each run opens the file afresh, as two processes would.
  const pacingLog = () => filePacingLog({ path: log, now: () => clock.now(), keepMs: 61_000 });
  for (let run = 0; run < 2; run++) {
    const client = createDspClient({
      apiOrigin: emulator.origin,
      environment: "production",
      credentials: USER,
      clock,
      random: seededRandom(run + 1),
      ...(shared ? { pacingLog: pacingLog() } : {}),
    });
    await readLiveState(client, desired);
    await client.close();
  }
  const gets = emulator.requestLog().filter((e) => e.method === "GET");
  return { gets: gets.length, refused: gets.filter((e) => e.status === 429).length };
}

describe("pacing across runs", () => {
  it("two full plans back to back draw no 429 with the shared request log", async () => {
    const { gets, refused } = await twoPlans(true);
    expect(gets).toBeGreaterThan(300);
    expect(refused).toBe(0);
  });

  it("draws 429s without it: the second run knows nothing of the first one's window", async () => {
    const { refused } = await twoPlans(false);
    expect(refused).toBeGreaterThan(0);
  });

  it("keeps no line of this run's own and no secret, and compacts lines whose window is over", () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-pacing-file-"));
    const path = join(dir, "pacing.log");
    let now = 1_000_000;
    const a = filePacingLog({ path, now: () => now, keepMs: 60_001 });
    const b = filePacingLog({ path, now: () => now, keepMs: 60_001 });
    a.record("get", now);
    a.record("write", now);
    expect(b.others("get", now - 60_001)).toEqual([now]);
    expect(a.others("get", now - 60_001)).toEqual([]);
    expect(readFileSync(path, "utf8")).toMatch(/^[0-9a-f]{8} get 1000000\n[0-9a-f]{8} write 1000000\n$/);
    for (let i = 0; i < 3200; i++) a.record("get", now);
    expect(statSync(path).size).toBeGreaterThan(64 * 1024); // all still inside their window
    now += 120_000;
    a.record("get", now);
    expect(b.others("get", 0)).toEqual([now]);
    expect(statSync(path).size).toBeLessThan(100);
  });
});
