/**
 * Scale benchmark: 100,000 campaigns in 10 insertion orders (10,000
 * each) against the same shape at 10,000 campaigns (10 orders of 1,000). Config load, plan
 * and render are each a ratio of the 100,000 figure to the 10,000 one (linear is 10); the
 * peak memory of the 100,000 plan is the plan process's own peak RSS, inputs included; the
 * plan file is written streamed (`writePlanFile`, as `plan -o` writes it) and its size is a
 * ratio too. Like `plan.ts`, the live state is in memory (no network, no rate windows): these
 * are CPU and memory figures, and the ratios are of CPU time (user and system, all of the
 * process's threads): the build machine is shared by many, and at load average 12 to 16 the
 * wall time of the same run moved by three times, while its CPU time moved little. Each
 * measurement is a cold child, the two sizes taking turns.
 *
 * The 100,000 runs take minutes in all: `BENCH_QUICK=1 npm run bench` leaves this area out
 * (and so leaves bench/results.json as it is, a partial run).
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writePlanFile } from "../src/cli/plan-file.js";
import { loadConfig } from "../src/config/load.js";
import type { DesiredState } from "../src/model/desired.js";
import { deactivatingChangeIds } from "../src/plan/changes/changes.js";
import { createPlan } from "../src/plan/planner.js";
import type { LiveState } from "../src/plan/types.js";
import { renderMarkdown } from "../src/render/markdown.js";
import { renderText } from "../src/render/text.js";
import { writeScenarioConfig } from "./config.js";
import type { Benchmark, Figure } from "./figures.js";
import { childRunsInTurns, fastest, runChild } from "./fork.js";
import { liveStateOf, PLAN_OPTIONS } from "./plan.js";
import { generateScenario, type ScenarioOptions } from "./scenario.js";

const AREA = "scale";
const ORDERS = 10;
const SMALL = 10_000;
const LARGE = 100_000;
/** Cold runs of each size, taking turns; the fastest of each is reported. */
const RUNS = 2;
/** Room to measure: the default old space (about 4 GiB here) is not the figure's limit. */
const NODE_ARGS = ["--max-old-space-size=12288"];
const MIB = 2 ** 20;

/** BENCH_SCENARIO's proportions (every campaign updated, 1 in 50 retargeted, 1 in 10 reassociated) in 10 orders. */
export function scaleScenario(campaigns: number): ScenarioOptions {
  return {
    insertionOrders: ORDERS,
    campaignsPerOrder: campaigns / ORDERS,
    creativesPerOrder: 2,
    campaignUpdates: campaigns,
    targetingChanges: campaigns / 50,
    associationChanges: campaigns / 10,
    seed: 8,
  };
}

/** Child task: writes the scenario's config (10 files) and its live state as JSON in `dir`. */
export async function prepareTask([optionsJson = "{}", livePath = ""]: string[]): Promise<{
  dir: string;
  configBytes: number;
}> {
  const options = JSON.parse(optionsJson) as ScenarioOptions;
  const { dir, bytes } = writeScenarioConfig(options);
  writeFileSync(livePath, JSON.stringify(liveStateOf(generateScenario(options))));
  return { dir, configBytes: bytes };
}

/** Wall and CPU time of `work`, in ms. */
async function timed<T>(work: () => Promise<T> | T): Promise<{ ms: number; cpuMs: number; result: T }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = await work();
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, result };
}

interface LoadResult {
  ms: number;
  cpuMs: number;
  campaigns: number;
}

/** Child task: `loadConfig` of the directory, as `doohctl validate DIR` does it. */
export async function scaleLoadTask([dir = ""]: string[]): Promise<LoadResult> {
  globalThis.gc?.();
  // Past the 32 MiB one run reads (docs/safety.md, Size caps): the growth is what is measured.
  const { ms, cpuMs, result } = await timed(() =>
    loadConfig([dir], { cwd: dir, maxTotalBytes: Number.POSITIVE_INFINITY }),
  );
  return { ms, cpuMs, campaigns: result.insertionOrders.reduce((n, io) => n + io.campaigns.length, 0) };
}

interface ScalePlanResult {
  campaigns: number;
  changes: number;
  requests: number;
  errors: number;
  planMs: number;
  planCpuMs: number;
  renderMs: number;
  renderCpuMs: number;
  fileBytes: number;
  /** The plan process's peak resident set size, its inputs included (`resourceUsage().maxRSS`). */
  maxRssMb: number;
}

/**
 * Child task: plans the desired state (JSON) against the live state (JSON), renders text and
 * Markdown, and saves the plan streamed to `out`, as `doohctl plan -o` does after its reads.
 */
export async function scalePlanTask([
  desiredPath = "",
  livePath = "",
  out = "",
]: string[]): Promise<ScalePlanResult> {
  const desired = JSON.parse(readFileSync(desiredPath, "utf8")) as DesiredState;
  const live = JSON.parse(readFileSync(livePath, "utf8")) as LiveState;
  globalThis.gc?.();
  const planned = await timed(() => createPlan(desired, live, PLAN_OPTIONS));
  const plan = planned.result;
  // The plan's own garbage is the plan's cost, not the renderings': collected here, untimed.
  globalThis.gc?.();
  const rendered = await timed(async () => {
    const text = renderText(plan, { colour: false });
    const markdown = renderMarkdown(plan, { deactivating: deactivatingChangeIds(plan.changes) });
    await writePlanFile(out, plan, { maxBytes: Number.POSITIVE_INFINITY }); // past the 64 MiB one run saves
    // As the plan command writes stdout: a rendering may be a rope of pieces, joined to write.
    return Buffer.byteLength(text) + Buffer.byteLength(markdown);
  });
  return {
    campaigns: live.campaigns.length,
    changes: plan.changes.length,
    requests: plan.requests.length,
    errors: plan.findings.filter((f) => f.severity === "error").length + (rendered.result > 0 ? 0 : 1),
    planMs: planned.ms,
    planCpuMs: planned.cpuMs,
    renderMs: rendered.ms,
    renderCpuMs: rendered.cpuMs,
    fileBytes: statSync(out).size,
    maxRssMb: (process.resourceUsage().maxRSS * 1024) / MIB,
  };
}

interface Prepared {
  /** The config directory. */
  dir: string;
  /** The live and desired state and the plan file. */
  scratch: string;
  configBytes: number;
  live: string;
  desired: string;
  out: string;
}

async function prepare(campaigns: number): Promise<Prepared> {
  const options = scaleScenario(campaigns);
  const scratch = mkdtempSync(join(tmpdir(), "doohctl-scale-"));
  const live = join(scratch, "live.json");
  const { dir, configBytes } = await runChild<{ dir: string; configBytes: number }>(
    "scale-prepare",
    [JSON.stringify(options), live],
    NODE_ARGS,
  );
  const desired = join(scratch, "desired.json");
  await runChild("desired", [dir, desired], NODE_ARGS);
  return { dir, scratch, configBytes, live, desired, out: join(scratch, "plan.json") };
}

function ratio(large: number, small: number): number {
  return Number((large / small).toFixed(2));
}

export const scaleBenchmark: Benchmark = {
  area: AREA,
  async run(): Promise<Figure[]> {
    const prepared: Prepared[] = [];
    try {
      for (const size of [SMALL, LARGE]) prepared.push(await prepare(size));
      const [small, large] = prepared as [Prepared, Prepared];
      const loads = await childRunsInTurns<LoadResult>(
        prepared.map((p) => ({ task: "scale-load", args: [p.dir], nodeArgs: NODE_ARGS })),
        RUNS,
      );
      const plans = await childRunsInTurns<ScalePlanResult>(
        prepared.map((p) => ({ task: "scale-plan", args: [p.desired, p.live, p.out], nodeArgs: NODE_ARGS })),
        RUNS,
      );
      const [loadSmall, loadLarge] = loads.map((runs) => fastest(runs, (r) => r.cpuMs)) as [
        LoadResult,
        LoadResult,
      ];
      const best = plans.map((runs) => ({
        plan: fastest(runs, (r) => r.planCpuMs),
        render: fastest(runs, (r) => r.renderCpuMs),
        memory: fastest(runs, (r) => r.maxRssMb),
      }));
      const [s, l] = best as [(typeof best)[0], (typeof best)[0]];
      for (const r of [s.plan, l.plan]) {
        if (r.errors > 0 || r.changes === 0) {
          throw new Error(`scale bench: the plan has ${r.errors} errors and ${r.changes} changes`);
        }
      }
      if (loadLarge.campaigns !== LARGE || loadSmall.campaigns !== SMALL) {
        throw new Error(`scale bench: loaded ${loadSmall.campaigns} and ${loadLarge.campaigns} campaigns`);
      }
      const n = (x: number) => x.toLocaleString("en-US");
      const mib = (bytes: number) => (bytes / MIB).toFixed(1);
      const at = `${n(LARGE)} / ${n(SMALL)} campaigns (${ORDERS} insertion orders each)`;
      const ms = (x: number) => `${n(Math.round(x))} ms`;
      return [
        {
          area: AREA,
          name: `load and validate ${n(LARGE)} campaigns in ${ORDERS} insertion orders (${mib(large.configBytes)} MiB of YAML, ${ORDERS} files), CPU time, cold process, least of ${RUNS} (wall ${ms(loadLarge.ms)}); ${n(SMALL)} (${mib(small.configBytes)} MiB): ${ms(loadSmall.cpuMs)} CPU, ${ms(loadSmall.ms)} wall`,
          value: Math.round(loadLarge.cpuMs),
          unit: "ms",
        },
        {
          area: AREA,
          name: `config load CPU time at ${at}`,
          value: ratio(loadLarge.cpuMs, loadSmall.cpuMs),
          unit: "x",
          target: { op: "<=", value: 11 },
        },
        {
          area: AREA,
          name: `plan ${n(l.plan.campaigns)} campaigns, ${n(l.plan.changes)} changes, ${n(l.plan.requests)} requests, in memory, CPU time, least of ${RUNS} (wall ${ms(l.plan.planMs)}); ${n(SMALL)}, ${n(s.plan.changes)} changes: ${ms(s.plan.planCpuMs)} CPU, ${ms(s.plan.planMs)} wall`,
          value: Math.round(l.plan.planCpuMs),
          unit: "ms",
        },
        {
          area: AREA,
          name: `plan CPU time at ${at}`,
          value: ratio(l.plan.planCpuMs, s.plan.planCpuMs),
          unit: "x",
          target: { op: "<=", value: 11 },
        },
        {
          area: AREA,
          name: `render text and Markdown and save the plan file streamed, ${n(LARGE)} campaigns, CPU time, least of ${RUNS} (wall ${ms(l.render.renderMs)}); ${n(SMALL)}: ${ms(s.render.renderCpuMs)} CPU, ${ms(s.render.renderMs)} wall`,
          value: Math.round(l.render.renderCpuMs),
          unit: "ms",
        },
        {
          area: AREA,
          name: `render CPU time at ${at}`,
          value: ratio(l.render.renderCpuMs, s.render.renderCpuMs),
          unit: "x",
          target: { op: "<=", value: 11 },
        },
        {
          area: AREA,
          name: `peak RSS of the ${n(LARGE)}-campaign plan process (desired and live state read from JSON, plan, renderings, plan file), least of ${RUNS}; ${n(SMALL)}: ${Math.round(s.memory.maxRssMb)} MiB`,
          value: Math.round(l.memory.maxRssMb),
          unit: "MiB",
          target: { op: "<=", value: 1536 },
        },
        {
          area: AREA,
          name: `plan file of ${n(LARGE)} campaigns, written streamed (${n(SMALL)}: ${mib(s.plan.fileBytes)} MiB)`,
          value: Number(mib(l.plan.fileBytes)),
          unit: "MiB",
        },
        {
          area: AREA,
          name: `plan file size at ${at}`,
          value: ratio(l.plan.fileBytes, s.plan.fileBytes),
          unit: "x",
          target: { op: "<=", value: 10.5 },
        },
      ];
    } finally {
      for (const p of prepared) {
        for (const dir of [p.dir, p.scratch]) rmSync(dir, { recursive: true, force: true });
      }
    }
  },
};
