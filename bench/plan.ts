/**
 * Plan benchmark (plan issue, Performance): the pure planner plus all three renderers for the
 * benchmark scenario against an in-memory live state, no network. Then the same at twice the
 * size (every count doubled) to show that no step is quadratic. Each measurement is a cold
 * child process, as a `doohctl plan` run is; the fastest of five is reported, the two sizes
 * taking turns. The time target is on the ratio to a bare copy of the plan's inputs timed in
 * the same processes.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config/load.js";
import type { DesiredState } from "../src/model/desired.js";
import { PUBLISHED_RATE_LIMITS } from "../src/model/limits.js";
import { deactivatingChangeIds } from "../src/plan/changes/changes.js";
import { createPlan } from "../src/plan/planner.js";
import { serializePlan } from "../src/plan/saved/file.js";
import type { LiveState } from "../src/plan/types.js";
import { renderMarkdown } from "../src/render/markdown.js";
import { renderText } from "../src/render/text.js";
import { writeScenarioConfig } from "./config.js";
import type { Benchmark, Figure } from "./figures.js";
import { childRunsInTurns, fastest, runChild } from "./fork.js";
import { measurePeak } from "./memory.js";
import { BENCH_SCENARIO, generateScenario, type Scenario, type ScenarioOptions } from "./scenario.js";

const AREA = "plan";
/** Cold runs per scenario: five, since the 20,000/10,000 ratio divides two noisy figures. */
const RUNS = 5;
/**
 * Copies in a row that make the baseline, timed together: about as long as the plan, so that
 * a neighbour's passing load is as likely to fall on either. (The fastest of many single
 * copies, each short, found the machine's quiet moments more often than the plan could, and
 * the ratio rose with the load: 8.3 at load average 17.)
 */
const BASELINE_COPIES = 3;

interface PlanResult {
  ms: number;
  planMs: number;
  renderMs: number;
  peakRssMb: number;
  campaigns: number;
  changes: number;
  requests: number;
  errors: number;
  /** UTF-8 bytes of the three renderings, as `doohctl plan` writes them. */
  outputBytes: number;
  /** The same process's bare copies of the plan's inputs (`inputCopyMs`), after the plan. */
  baselineMs: number;
}

/**
 * The plan's baseline, timed in the same process: a bare `JSON.parse(JSON.stringify(...))`
 * of the desired and live state, a deep copy of the plan's inputs. It visits every object
 * the planner must read at least once, so it scales with the same data (campaigns,
 * targetings, creatives, on both sides), and it is V8's native code, none of ours: its time
 * follows the machine's speed and load only. A render-size stringify would scale with the
 * changes instead, a figure of our own output.
 */
function inputCopyMs(desired: DesiredState, live: LiveState): number {
  let total = 0;
  for (let i = 0; i < BASELINE_COPIES; i++) {
    globalThis.gc?.();
    const start = performance.now();
    JSON.parse(JSON.stringify({ desired, live }));
    total += performance.now() - start;
  }
  return total;
}

/** The live state a plan compares against, as `readLiveState` would have returned it. */
export function liveStateOf(scenario: Scenario): LiveState {
  return {
    insertionOrders: scenario.live.insertion_orders,
    campaigns: scenario.live.campaigns,
    targetings: scenario.live.targetings,
    creatives: scenario.live.creatives,
    advertisers: [],
    readRequests: 0,
  };
}

export const PLAN_OPTIONS = {
  now: "2026-11-01T00:00:00Z",
  toolVersion: "bench",
  connection: { api_origin: "http://127.0.0.1:4010", environment: "production" as const },
  rateLimits: PUBLISHED_RATE_LIMITS,
};

/**
 * Child task: loads the config in `dir` and saves the desired state as JSON in `out`, so
 * that the timed plan runs need not each load 10,000 campaigns of YAML first (the desired
 * state is plain data: JSON keeps it exactly).
 */
export async function desiredTask([dir = "", out = ""]: string[]): Promise<{ campaigns: number }> {
  // The scale area's 100,000 campaigns (45 MiB) are past what one run reads: measured anyway.
  const desired = await loadConfig([dir], { cwd: dir, maxTotalBytes: Number.POSITIVE_INFINITY });
  writeFileSync(out, JSON.stringify(desired));
  return { campaigns: desired.insertionOrders.reduce((n, io) => n + io.campaigns.length, 0) };
}

/** Child task: args are the scenario options (JSON) and the desired state's JSON file. */
export async function planTask([optionsJson = "{}", desiredPath = ""]: string[]): Promise<PlanResult> {
  const options = JSON.parse(optionsJson) as ScenarioOptions;
  const live = liveStateOf(generateScenario(options));
  const desired = JSON.parse(readFileSync(desiredPath, "utf8")) as DesiredState;
  const measured = await measurePeak(() => {
    const start = performance.now();
    const plan = createPlan(desired, live, PLAN_OPTIONS);
    const planned = performance.now();
    const text = renderText(plan, { colour: false });
    const json = serializePlan(plan);
    const markdown = renderMarkdown(plan, { deactivating: deactivatingChangeIds(plan.changes) });
    // Timed with the rendering: a rendering may be a rope of pieces (JSON.stringify's output
    // is), which writing it to a file or stdout first joins into one string.
    const outputBytes = Buffer.byteLength(text) + Buffer.byteLength(json) + Buffer.byteLength(markdown);
    return {
      planMs: planned - start,
      renderMs: performance.now() - planned,
      changes: plan.changes.length,
      requests: plan.requests.length,
      errors: plan.findings.filter((f) => f.severity === "error").length,
      outputBytes,
    };
  });
  return {
    ms: measured.ms,
    peakRssMb: measured.peakRssMb,
    campaigns: live.campaigns.length,
    ...measured.result,
    // After the plan, so that its garbage cannot lower the plan's peak RSS figure.
    baselineMs: inputCopyMs(desired, live),
  };
}

function doubled(options: ScenarioOptions): ScenarioOptions {
  const twice = (n: number | undefined) => (n ?? 0) * 2;
  return {
    ...options,
    campaignsPerOrder: options.campaignsPerOrder * 2,
    creativesPerOrder: twice(options.creativesPerOrder),
    campaignUpdates: twice(options.campaignUpdates),
    targetingChanges: twice(options.targetingChanges),
    associationChanges: twice(options.associationChanges),
  };
}

/** Writes the scenario's config and loads it once, in a child, into `desired.json`. */
async function prepareScenario(options: ScenarioOptions): Promise<{ dir: string; args: string[] }> {
  const { dir } = writeScenarioConfig(options);
  const desiredPath = join(dir, "desired.json");
  await runChild("desired", [dir, desiredPath]);
  return { dir, args: [JSON.stringify(options), desiredPath] };
}

/**
 * The fastest of RUNS cold runs of each scenario, the runs taking turns: running all of one
 * size first skewed the ratio between them, which is what that figure is for (it measured
 * 1.7x to 2.5x between runs that way, with no change in the code). With each, the fastest
 * of its runs' baselines.
 */
async function measureScenarios(scenarios: readonly ScenarioOptions[]): Promise<PlanResult[]> {
  const prepared = [];
  try {
    for (const options of scenarios) prepared.push(await prepareScenario(options));
    const runs = await childRunsInTurns<PlanResult>(
      prepared.map(({ args }) => ({ task: "plan", args })),
      RUNS,
    );
    return runs.map((results) => {
      const best = fastest(results, (r) => r.ms);
      if (best.errors > 0 || best.changes === 0) {
        throw new Error(`plan bench: the plan has ${best.errors} errors and ${best.changes} changes`);
      }
      return { ...best, baselineMs: fastest(results, (r) => r.baselineMs).baselineMs };
    });
  } finally {
    for (const { dir } of prepared) rmSync(dir, { recursive: true, force: true });
  }
}

export const planBenchmark: Benchmark = {
  area: AREA,
  async run(): Promise<Figure[]> {
    const [base, large] = (await measureScenarios([BENCH_SCENARIO, doubled(BENCH_SCENARIO)])) as [
      PlanResult,
      PlanResult,
    ];
    const n = (x: number) => x.toLocaleString("en-US");
    return [
      {
        area: AREA,
        name: `plan and render text, JSON and Markdown: ${n(base.campaigns)} campaigns, ${n(base.changes)} changes, ${n(base.requests)} requests (plan ${Math.round(base.planMs)} ms, render ${Math.round(base.renderMs)} ms), cold process, fastest of ${RUNS}`,
        value: Math.round(base.ms),
        unit: "ms",
      },
      {
        area: AREA,
        name: `bare copy of the plan's inputs, JSON.parse(JSON.stringify(desired and live state)), ${BASELINE_COPIES} times in a row, in the same processes, fastest of ${RUNS}`,
        value: Math.round(base.baselineMs),
        unit: "ms",
      },
      {
        area: AREA,
        name: `plan and render time / ${BASELINE_COPIES} bare copies of the inputs`,
        value: Number((base.ms / base.baselineMs).toFixed(2)),
        unit: "x",
        // The required 1.5 s at 590 ms for the copies: their CPU time (user + system) on this
        // machine on 2026-11-23 at 23:51 UTC, what they take on an idle core. The machine was
        // at load average 11 to 17 all evening, and their wall time then (668 ms at best) would
        // have given a target stricter than the required bound by as much as it was busy.
        target: { op: "<=", value: 2.54 },
      },
      {
        area: AREA,
        name: "peak RSS growth while planning and rendering",
        value: Math.round(base.peakRssMb),
        unit: "MiB",
        target: { op: "<=", value: 400 },
      },
      {
        area: AREA,
        name: `the same at ${n(large.campaigns)} campaigns, ${n(large.changes)} changes (plan ${Math.round(large.planMs)} ms, render ${Math.round(large.renderMs)} ms)`,
        value: Math.round(large.ms),
        unit: "ms",
      },
      {
        area: AREA,
        name: `time at ${n(large.campaigns)} / time at ${n(base.campaigns)} campaigns`,
        value: Number((large.ms / base.ms).toFixed(2)),
        unit: "x",
        target: { op: "<=", value: 2.2 },
      },
    ];
  },
};
