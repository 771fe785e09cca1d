/**
 * Shortest dark time: an apply of about 1,000 targeting changes that
 * each pause a live campaign (G5, I1), at 10 writes/60s, on the emulator and client sharing
 * one VirtualClock. Figures: the writes against the I4 minimum (computed from the scenario,
 * not from the plan), and each paused campaign's dark time as the emulator's clock saw it,
 * from the answer to its pause to the answer to its reactivation: mean and maximum, and their
 * ratio to the group bound (its group's pause, PUTs and reactivation at the write window).
 * Then `--max-pause 60`: the longest estimated pause and the extra writes it costs.
 */
import { rmSync } from "node:fs";
import { applyPlan } from "../src/apply/execute.js";
import { loadConfig } from "../src/config/load.js";
import { PUBLISHED_RATE_LIMITS } from "../src/model/limits.js";
import { createPlan } from "../src/plan/planner.js";
import { pauseSpans } from "../src/plan/requests/pauses.js";
import type { Plan } from "../src/plan/types.js";
import { minimumWrites } from "./apply.js";
import { writeScenarioConfig } from "./config.js";
import type { Benchmark, Figure } from "./figures.js";
import { liveStateOf, PLAN_OPTIONS } from "./plan.js";
import { BENCH_SCENARIO, generateScenario, type ScenarioOptions } from "./scenario.js";
import { withSimulatedDsp } from "./simulated.js";

const AREA = "pauses";
/** About 3 in 10 targeting changes remove a set from an active campaign: about 1,000 pauses. */
const OPTIONS: ScenarioOptions = {
  ...BENCH_SCENARIO,
  campaignUpdates: 0,
  associationChanges: 0,
  targetingChanges: 3_400,
};
const INTERVAL_MS = PUBLISHED_RATE_LIMITS.write.windowMs / PUBLISHED_RATE_LIMITS.write.limit;

interface DarkRun {
  writes: number;
  /** Per paused campaign: ms dark, and its group's bound in ms. */
  dark: number[];
  bound: number[];
}

async function simulate(plan: Plan, seed: ReturnType<typeof generateScenario>["live"]): Promise<DarkRun> {
  return withSimulatedDsp(seed, async ({ clock, client }) => {
    const before = client.stats().writes;
    const answeredAt = new Map<number, number>();
    const result = await applyPlan({
      plan,
      client,
      clock,
      onEvent: (event) => {
        if (event.type === "applied") answeredAt.set(event.record.seq, clock.now());
      },
    });
    if (result.status !== "applied") throw new Error(`pauses bench: the apply ${result.status}`);
    const spans = pauseSpans(plan);
    const groupSize = new Map<number, number>();
    for (const s of spans) groupSize.set(s.pause_seq, (groupSize.get(s.pause_seq) ?? 0) + 1);
    return {
      writes: client.stats().writes - before,
      dark: spans.map((s) => answeredAt.get(s.resume_seq!)! - answeredAt.get(s.pause_seq)!),
      // Its group's PUTs and its reactivation, each a write interval after the pause.
      bound: spans.map((s) => (groupSize.get(s.pause_seq)! + 1) * INTERVAL_MS),
    };
  });
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const minutes = (ms: number) => Number((ms / 60_000).toFixed(2));

export const pausesBenchmark: Benchmark = {
  area: AREA,
  async run(): Promise<Figure[]> {
    const scenario = generateScenario(OPTIONS);
    const { dir } = writeScenarioConfig(OPTIONS);
    const desired = await loadConfig([dir], { cwd: dir }).finally(() =>
      rmSync(dir, { recursive: true, force: true }),
    );
    const live = liveStateOf(scenario);
    const plan = createPlan(desired, live, PLAN_OPTIONS);
    const minimum = minimumWrites(scenario);
    const run = await simulate(plan, scenario.live);
    const bounded = createPlan(desired, live, { ...PLAN_OPTIONS, maxPauseMs: 60_000 });
    const boundedDark = pauseSpans(bounded).map((s) => (s.resume_seq! - s.pause_seq) * INTERVAL_MS);
    const meanDark = mean(run.dark);
    const maxDark = Math.max(...run.dark);
    return [
      {
        area: AREA,
        name: `write requests of ${minimum.targetings.toLocaleString("en-US")} targeting changes, ${minimum.pauses.toLocaleString("en-US")} of them pausing a live campaign (bound: I4)`,
        value: run.writes,
        unit: "requests",
        target: { op: "<=", value: minimum.requests },
        bound: minimum.requests,
      },
      {
        area: AREA,
        name: "mean dark time per paused campaign, simulated at 10 writes/60s (naive: pauses in phase 3 and reactivations in phase 6, as before grouping, dark for every PUT)",
        value: minutes(meanDark),
        unit: "min",
        target: { op: "<=", value: 11 },
        bound: minutes(mean(run.bound)),
        naive: minutes((minimum.targetings + 1) * INTERVAL_MS),
      },
      {
        area: AREA,
        name: "maximum dark time of a paused campaign, simulated",
        value: minutes(maxDark),
        unit: "min",
        bound: minutes(Math.max(...run.bound)),
      },
      {
        area: AREA,
        name: "mean dark time / group bound (its group's pause, PUTs and reactivation)",
        value: Number((meanDark / mean(run.bound)).toFixed(3)),
        unit: "x",
        target: { op: "<=", value: 1.03 },
      },
      {
        area: AREA,
        name: "with --max-pause 60: the longest estimated pause",
        value: Math.max(...boundedDark) / 1000,
        unit: "s",
        target: { op: "<=", value: 60 },
      },
      {
        area: AREA,
        name: "with --max-pause 60: extra writes over the minimum (the plan prints them)",
        value: bounded.summary.pauses?.extra_writes ?? 0,
        unit: "requests",
        bound: 0,
      },
    ];
  },
};
