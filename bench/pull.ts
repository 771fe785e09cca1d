/**
 * Pull benchmark: `doohctl pull` of 1,000 drifted fields among
 * 10,000 campaigns, reads excluded (the live state is in memory) and no wall clock read by
 * pull itself (the plan's time is fixed: a virtual clock). Timed: the plan, the edit of the
 * files' texts and pull's own check (the edited texts loaded again and planned again), as
 * the command does them. The target is on the ratio to a baseline timed in the same run,
 * taking turns: the plan of the same drift without reads, plus a bare `yaml` parseDocument
 * and toString of the same files. Target 1.5.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Document, parseDocument } from "yaml";
import { loadConfig } from "../src/config/load.js";
import { createPlan } from "../src/plan/planner.js";
import type { LiveState } from "../src/plan/types.js";
import { pullConfig } from "../src/pull/pull.js";
import { verifyPull } from "../src/pull/verify.js";
import type { Benchmark, Figure } from "./figures.js";
import { PLAN_OPTIONS } from "./plan.js";
import { BENCH_SCENARIO, configFiles, generateScenario } from "./scenario.js";

const AREA = "pull";
const ROUNDS = 5;
const DRIFTED = 1_000;

/** The live state the config describes, with 500 budgets and 500 cpms drifted. */
function driftedLive(): { live: LiveState; files: { name: string; text: string }[] } {
  const scenario = generateScenario(BENCH_SCENARIO);
  const campaigns = structuredClone(scenario.desired.campaigns);
  for (let i = 0; i < DRIFTED; i++) {
    const c = campaigns[i * Math.floor(campaigns.length / DRIFTED)];
    if (!c) continue;
    if (i % 2 === 0) c.budget_impressions += 7;
    else c.cpm = { ...c.cpm, nanos: (c.cpm.nanos + 10_000_000) % 1_000_000_000 };
  }
  return {
    live: {
      insertionOrders: scenario.live.insertion_orders,
      campaigns,
      targetings: scenario.desired.targetings,
      creatives: scenario.desired.creatives,
      advertisers: [],
      readRequests: 0,
    },
    files: configFiles(scenario, 10),
  };
}

export const pullBenchmark: Benchmark = {
  area: AREA,
  async run(): Promise<Figure[]> {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-bench-pull-"));
    try {
      const { live, files } = driftedLive();
      for (const f of files) writeFileSync(join(dir, f.name), f.text);
      // As `doohctl pull` loads it: keeping each file's document for the edit.
      const documents = new Map<string, { text: string; document: Document }>();
      const desired = await loadConfig([dir], {
        cwd: dir,
        onDocument: (file, text, document) => documents.set(file, { text, document }),
      });
      const texts = new Map(desired.insertionOrders.map((io) => [io.source.file, ""]));
      for (const file of texts.keys()) texts.set(file, readFileSync(join(dir, file), "utf8"));
      const pullTimes: number[] = [];
      const baseTimes: number[] = [];
      let pulled = 0;
      let problems = 0;
      let drift = 0;
      for (let round = 0; round < ROUNDS; round++) {
        globalThis.gc?.();
        let start = performance.now();
        const plan = createPlan(desired, live, PLAN_OPTIONS);
        drift = plan.changes.length;
        for (const text of texts.values()) parseDocument(text).toString();
        baseTimes.push(performance.now() - start);

        globalThis.gc?.();
        start = performance.now();
        const pullPlan = createPlan(desired, live, PLAN_OPTIONS);
        const result = pullConfig({ plan: pullPlan, desired, live, recorded: [], texts, documents });
        const edited = new Map(result.files.map((f) => [join(dir, f.file), f.after]));
        const after = await loadConfig([dir], {
          cwd: dir,
          readFile: async (path) => Buffer.from(edited.get(path) ?? readFileSync(path, "utf8")),
          listDirectory: async () => files.map((f) => f.name),
        });
        problems = verifyPull({
          before: desired,
          after,
          live,
          planOptions: PLAN_OPTIONS,
          pulled: result.pulled,
          appended: [],
        }).length;
        pullTimes.push(performance.now() - start);
        pulled = result.pulled.length;
      }
      const pullMs = Math.min(...pullTimes);
      const baseMs = Math.min(...baseTimes);
      return [
        {
          area: AREA,
          name: `pull of ${pulled.toLocaleString("en-US")} drifted fields (${drift.toLocaleString("en-US")} plan changes) among 10,000 campaigns in 10 files: plan, edit, and pull's check (load and plan again); reads excluded, fastest of ${ROUNDS}`,
          value: Math.round(pullMs),
          unit: "ms",
        },
        {
          area: AREA,
          name: "baseline, taking turns: the plan of the same drift without reads, plus bare yaml parseDocument and toString of the same files",
          value: Math.round(baseMs),
          unit: "ms",
        },
        {
          area: AREA,
          name: "problems pull's check found in its own edit",
          value: problems,
          unit: "",
          target: { op: "<=", value: 0 },
        },
        {
          area: AREA,
          name: "fields pulled",
          value: pulled,
          unit: "fields",
          target: { op: ">=", value: DRIFTED },
        },
        {
          area: AREA,
          name: "pull time / baseline",
          value: Number((pullMs / baseMs).toFixed(2)),
          unit: "x",
          target: { op: "<=", value: 1.5 },
        },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
