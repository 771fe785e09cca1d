/**
 * Apply simulation (apply issue, Performance): the benchmark scenario's plan (10,000
 * campaign updates, 200 targeting changes, 1,000 creative association changes) applied to
 * the emulator at the published windows, emulator and client on one VirtualClock
 * (autoAdvance), so 30 simulated minutes take seconds. Against it: the I4 minimum of write
 * requests, computed from the scenario rather than from the plan; the write-window bound;
 * and the same apply run again one object per request (`naive.ts`), on a fresh emulator.
 */
import { rmSync } from "node:fs";
import { applyPlan } from "../src/apply/execute.js";
import { loadConfig } from "../src/config/load.js";
import type { EmulatorStateView } from "../src/emulator/index.js";
import type { DesiredState } from "../src/model/desired.js";
import { PUBLISHED_RATE_LIMITS } from "../src/model/limits.js";
import { MAX_BATCH } from "../src/model/wire.js";
import { createPlan } from "../src/plan/planner.js";
import type { LiveState, Plan } from "../src/plan/types.js";
import { windowBoundMs } from "./client.js";
import { writeScenarioConfig } from "./config.js";
import type { Benchmark, Figure } from "./figures.js";
import { onePerRequest } from "./naive.js";
import { liveStateOf, PLAN_OPTIONS } from "./plan.js";
import { BENCH_SCENARIO, generateScenario, type Scenario } from "./scenario.js";
import { withSimulatedDsp } from "./simulated.js";

const AREA = "apply";

interface Minimum {
  requests: number;
  updates: number;
  pauses: number;
  targetings: number;
  creatives: number;
}

const batches = (items: number) => Math.ceil(items / MAX_BATCH);

/**
 * I4 from the scenario itself: phase 3 one batch per 100 campaigns updated or paused, one
 * PUT per targeting change, phase 5 one batch per 100 creatives whose associations change,
 * phase 6 one batch per 100 reactivations. A campaign is paused only when it is active and
 * its change drops or alters an option set (G5: adding one is allowed while active).
 */
export function minimumWrites(scenario: Scenario): Minimum {
  const { live, desired } = scenario;
  const liveCampaigns = new Map(live.campaigns.map((c) => [c.id, c]));
  const updated = new Set<string>();
  for (const c of desired.campaigns) {
    const before = liveCampaigns.get(c.id)!;
    const same =
      JSON.stringify(before.cpm) === JSON.stringify(c.cpm) &&
      before.budget_impressions === c.budget_impressions;
    if (!same) updated.add(c.id);
  }
  let targetings = 0;
  const paused = new Set<string>();
  for (const [id, sets] of Object.entries(desired.targetings)) {
    const wanted = new Set(sets.map((s) => JSON.stringify(s)));
    const had = (live.targetings[id] ?? []).map((s) => JSON.stringify(s));
    if (had.length === wanted.size && had.every((s) => wanted.has(s))) continue;
    targetings++;
    if (liveCampaigns.get(id)!.active && had.some((s) => !wanted.has(s))) paused.add(id);
  }
  const liveCreatives = new Map(live.creatives.map((c) => [c.id, c]));
  const ids = (list: readonly string[]) => JSON.stringify([...list].sort());
  const creatives = desired.creatives.filter(
    (c) => ids(c.campaign_ids) !== ids(liveCreatives.get(c.id)!.campaign_ids),
  ).length;
  const phase3 = new Set([...updated, ...paused]).size;
  return {
    requests: batches(phase3) + targetings + batches(creatives) + batches(paused.size),
    updates: updated.size,
    pauses: paused.size,
    targetings,
    creatives,
  };
}

function liveFromEmulator(state: EmulatorStateView): LiveState {
  return {
    insertionOrders: state.insertion_orders,
    campaigns: state.campaigns,
    targetings: state.targetings,
    creatives: state.creatives,
    advertisers: [],
    readRequests: 0,
  };
}

interface ApplyRun {
  writes: number;
  simulatedMs: number;
  wallMs: number;
  rateLimited: number;
  /** Changes a new plan finds afterwards (I6). */
  left: number;
}

/** Applies `plan` to a fresh emulator seeded with the scenario, at the published windows. */
async function simulateApply(scenario: Scenario, desired: DesiredState, plan: Plan): Promise<ApplyRun> {
  return withSimulatedDsp(scenario.live, async ({ clock, emulator, client }) => {
    const before = client.stats();
    const wallStart = performance.now();
    const start = clock.now();
    const result = await applyPlan({ plan, client, clock });
    const simulatedMs = clock.now() - start;
    const wallMs = performance.now() - wallStart;
    const after = client.stats();
    if (result.status !== "applied") {
      throw new Error(`apply bench: the apply ${result.status}: ${result.failure?.message ?? ""}`);
    }
    return {
      writes: after.writes - before.writes,
      simulatedMs,
      wallMs,
      rateLimited: after.rateLimited - before.rateLimited,
      left: createPlan(desired, liveFromEmulator(emulator.state()), PLAN_OPTIONS).changes.length,
    };
  });
}

export const applyBenchmark: Benchmark = {
  area: AREA,
  async run(): Promise<Figure[]> {
    const scenario = generateScenario(BENCH_SCENARIO);
    const { dir } = writeScenarioConfig(BENCH_SCENARIO);
    const desired = await loadConfig([dir], { cwd: dir }).finally(() =>
      rmSync(dir, { recursive: true, force: true }),
    );
    const plan = createPlan(desired, liveStateOf(scenario), PLAN_OPTIONS);
    const errors = plan.findings.filter((f) => f.severity === "error");
    if (errors.length > 0) throw new Error(`apply bench: the plan has errors: ${errors[0]?.message}`);

    const batched = await simulateApply(scenario, desired, plan);
    const naive = await simulateApply(scenario, desired, onePerRequest(plan));
    const minimum = minimumWrites(scenario);
    const window = PUBLISHED_RATE_LIMITS.write;
    const bound = windowBoundMs(minimum.requests, window);
    const seconds = (ms: number) => Number((ms / 1000).toFixed(2));
    const n = (x: number) => x.toLocaleString("en-US");
    return [
      {
        area: AREA,
        name: `write requests for ${n(minimum.updates)} campaign updates (${n(minimum.pauses)} paused for a targeting change), ${n(minimum.targetings)} targeting changes, ${n(minimum.creatives)} creatives' associations (${n(scenario.counts.associationChanges)} association changes); bound: I4`,
        value: batched.writes,
        unit: "requests",
        target: { op: "<=", value: minimum.requests },
        bound: minimum.requests,
        naive: naive.writes,
      },
      {
        area: AREA,
        name: "simulated apply time at 10 writes/60s (bound: the earliest the last of the I4 minimum may leave the window)",
        value: seconds(batched.simulatedMs),
        unit: "s",
        bound: seconds(bound),
        naive: seconds(naive.simulatedMs),
      },
      {
        area: AREA,
        name: "simulated apply time / write-window bound",
        value: Number((batched.simulatedMs / bound).toFixed(5)),
        unit: "x",
        target: { op: "<=", value: 1.03 },
      },
      {
        area: AREA,
        name: "429 answers",
        value: batched.rateLimited,
        unit: "",
        target: { op: "<=", value: 0 },
      },
      {
        area: AREA,
        name: "changes a new plan finds after the apply (I6, convergence)",
        value: batched.left,
        unit: "",
        target: { op: "<=", value: 0 },
      },
      { area: AREA, name: "wall time of the simulated apply", value: Math.round(batched.wallMs), unit: "ms" },
      {
        area: AREA,
        name: `one object per request, run: ${n(naive.writes)} writes, ${naive.rateLimited} 429s, ${naive.left} changes left; simulated time (wall ${n(Math.round(naive.wallMs))} ms)`,
        value: Number((naive.simulatedMs / 3_600_000).toFixed(2)),
        unit: "h",
        bound: Number((bound / 3_600_000).toFixed(2)),
      },
    ];
  },
};
