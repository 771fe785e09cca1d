/**
 * A full plan of the 10,000-campaign scenario against the emulator serving a dialect whose
 * campaign answers embed their targetings (`campaign_targetings`, docs/assumptions.md#dialect),
 * at the published windows on a virtual clock, beside the same plan under the gap decisions as
 * written (one targeting read per campaign, G5). Reads of insertion orders, campaigns and
 * targetings are held to their bound: ceil(campaigns / 100) + ceil(insertion orders / 100).
 * The creatives the config associates (100 campaign ids a request) and the advertisers are read
 * as in every plan.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDspClient } from "../src/api/client.js";
import { loadConfig } from "../src/config/load.js";
import { startEmulator } from "../src/emulator/index.js";
import { VirtualClock } from "../src/model/clock.js";
import { DEFAULT_DIALECT, type Dialect } from "../src/model/dialect.js";
import { PUBLISHED_RATE_LIMITS } from "../src/model/limits.js";
import { MAX_PAGE_SIZE } from "../src/model/wire.js";
import { createPlan } from "../src/plan/planner.js";
import { readLiveState } from "../src/plan/read.js";
import { BENCH_USER } from "./emulator.js";
import type { Benchmark, Figure } from "./figures.js";
import { PLAN_OPTIONS } from "./plan.js";
import { BENCH_SCENARIO, generateScenario } from "./scenario.js";

const AREA = "dialect";
const EMBEDDING: Dialect = { ...DEFAULT_DIALECT, campaign_targetings: "targetings" };

interface FullPlan {
  reads: number;
  /** Reads of insertion orders, campaigns and targetings. */
  bounded: number;
  simulatedMs: number;
  changes: number;
}

async function fullPlan(dialect: Dialect): Promise<FullPlan> {
  const s = generateScenario({
    ...BENCH_SCENARIO,
    campaignUpdates: 0,
    targetingChanges: 0,
    associationChanges: 0,
  });
  const clock = new VirtualClock({ autoAdvance: true });
  const emulator = await startEmulator({ seed: s.live, clock, dialect });
  const client = createDspClient({
    apiOrigin: emulator.origin,
    environment: "production",
    credentials: BENCH_USER,
    rateLimits: PUBLISHED_RATE_LIMITS,
    clock,
    dialect,
  });
  // Reads outside the bound: the creatives the config associates, the advertisers' currencies.
  let others = 0;
  client.on((event) => {
    if (event.type !== "response" || event.method !== "GET") return;
    if (event.path.endsWith("/creatives") || event.path.endsWith("/advertisers")) others++;
  });
  try {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-bench-dialect-"));
    writeFileSync(join(dir, "doohctl.yaml"), s.configYaml);
    const desired = await loadConfig([], { cwd: dir }).finally(() =>
      rmSync(dir, { recursive: true, force: true }),
    );
    desired.connection.dialect = dialect;
    await client.openSession();
    const start = clock.now();
    const live = await readLiveState(client, desired);
    const simulatedMs = clock.now() - start;
    const plan = createPlan(desired, live, PLAN_OPTIONS);
    return {
      reads: live.readRequests,
      bounded: live.readRequests - others,
      simulatedMs,
      changes: plan.changes.length,
    };
  } finally {
    await client.close();
    await emulator.close();
  }
}

export const dialectBenchmark: Benchmark = {
  area: AREA,
  async run(): Promise<Figure[]> {
    const s = generateScenario({
      ...BENCH_SCENARIO,
      campaignUpdates: 0,
      targetingChanges: 0,
      associationChanges: 0,
    });
    const bound =
      Math.ceil(s.live.campaigns.length / MAX_PAGE_SIZE) +
      Math.ceil(s.live.insertion_orders.length / MAX_PAGE_SIZE);
    const embedded = await fullPlan(EMBEDDING);
    const asWritten = await fullPlan(DEFAULT_DIALECT);
    for (const plan of [embedded, asWritten]) {
      if (plan.changes !== 0)
        throw new Error(`dialect bench: a plan of the unchanged scenario has ${plan.changes} changes`);
    }
    const n = (x: number) => x.toLocaleString("en-US");
    const seconds = (ms: number) => Number((ms / 1000).toFixed(1));
    const perMinute = PUBLISHED_RATE_LIMITS.get.limit;
    return [
      {
        area: AREA,
        name: `full plan of ${n(s.live.campaigns.length)} campaigns with campaign_targetings: reads of insertion orders, campaigns and targetings (bound: ceil(${n(s.live.campaigns.length)} / 100) + ceil(${s.live.insertion_orders.length} / 100); naive: the same plan under G5 as written)`,
        value: embedded.bounded,
        unit: "requests",
        target: { op: "<=", value: bound },
        bound,
        naive: asWritten.bounded,
      },
      {
        area: AREA,
        name: `  all its reads, with the creatives the config associates and the advertisers (naive: ${n(asWritten.reads)} under G5 as written)`,
        value: embedded.reads,
        unit: "requests",
        naive: asWritten.reads,
      },
      {
        area: AREA,
        name: `  its simulated read time at ${perMinute} GET/60s (bound: a window per ${perMinute} reads after the first ${perMinute}; naive: ${n(seconds(asWritten.simulatedMs))} s under G5 as written)`,
        value: seconds(embedded.simulatedMs),
        unit: "s",
        bound: seconds(Math.floor((embedded.reads - 1) / perMinute) * PUBLISHED_RATE_LIMITS.get.windowMs),
        naive: seconds(asWritten.simulatedMs),
      },
    ];
  },
};
