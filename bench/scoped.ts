/**
 * Change-scoped plans and pacing across runs, in the 10,000-campaign
 * scenario against the in-process emulator at the published windows on one virtual clock:
 * - `plan --changed-since` of a 3-campaign change, committed config in a temporary git
 *   repository: read requests (against a full plan's), simulated read time, and wall time
 *   split into the two config loads, the reads and the planning;
 * - two full plans back to back, each its own client sharing the pacing log: 429s drawn.
 * The emulator's clock is virtual, so wall times hold no rate-limit waits.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDspClient } from "../src/api/client.js";
import { filePacingLog } from "../src/api/pacing-log.js";
import type { DspClient } from "../src/api/types.js";
import { loadConfigAtRevision, resolveRevision } from "../src/config/git.js";
import { loadConfig } from "../src/config/load.js";
import { startEmulator } from "../src/emulator/index.js";
import { VirtualClock } from "../src/model/clock.js";
import type { DesiredState } from "../src/model/desired.js";
import { PUBLISHED_RATE_LIMITS } from "../src/model/limits.js";
import { changedSince } from "../src/plan/changes/changed.js";
import { createPlan } from "../src/plan/planner.js";
import { readLiveState } from "../src/plan/read.js";
import type { ChangedScope } from "../src/plan/types.js";
import { BENCH_USER } from "./emulator.js";
import type { Benchmark, Figure } from "./figures.js";
import { PLAN_OPTIONS } from "./plan.js";
import { BENCH_SCENARIO, configFiles, generateScenario } from "./scenario.js";

const AREA = "scoped";
const FILES = 20;
/** Campaigns the pull request changes, in three insertion orders. */
const CHANGED = ["Campaign 7 of 1003", "Campaign 21 of 1088", "Campaign 40 of 1170"];

const scenario = () =>
  generateScenario({ ...BENCH_SCENARIO, campaignUpdates: 0, targetingChanges: 0, associationChanges: 0 });

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.email=bench@doohctl.test", "-c", "user.name=bench", ...args], { cwd });
}

/** A repository whose commit holds the scenario's config and whose working tree changes 3 campaigns. */
function repository(s: ReturnType<typeof scenario>): string {
  const repo = mkdtempSync(join(tmpdir(), "doohctl-bench-scoped-"));
  mkdirSync(join(repo, "conf"));
  const files = configFiles(s, FILES);
  for (const f of files) writeFileSync(join(repo, "conf", f.name), f.text);
  git(repo, "init", "-q", "-b", "main");
  git(repo, "add", ".");
  git(repo, "commit", "-q", "-m", "base");
  for (const name of CHANGED) {
    const file = files.find((f) => f.text.includes(`name: ${name}\n`));
    if (!file) throw new Error(`bench: no campaign ${name}`);
    const path = join(repo, "conf", file.name);
    const pattern = new RegExp(`(name: ${name}\\n(?:.*\\n)*?\\s+budget_impressions: )10000`);
    writeFileSync(path, readFileSync(path, "utf8").replace(pattern, "$111000"));
  }
  return repo;
}

function client(
  origin: string,
  clock: VirtualClock,
  pacingLog?: ReturnType<typeof filePacingLog>,
): DspClient {
  return createDspClient({
    apiOrigin: origin,
    environment: "production",
    credentials: BENCH_USER,
    rateLimits: PUBLISHED_RATE_LIMITS,
    clock,
    ...(pacingLog ? { pacingLog } : {}),
  });
}

async function timed<T>(fn: () => Promise<T> | T): Promise<{ ms: number; result: T }> {
  const start = performance.now();
  const result = await fn();
  return { ms: performance.now() - start, result };
}

/** One plan's reads on a fresh client, from a clear window: requests, simulated and wall time. */
async function plannedRead(
  origin: string,
  clock: VirtualClock,
  desired: DesiredState,
  changed?: ChangedScope,
): Promise<{ requests: number; simulatedMs: number; readMs: number; planMs: number; changes: number }> {
  const c = client(origin, clock);
  try {
    await clock.sleep(PUBLISHED_RATE_LIMITS.get.windowMs + 1);
    const simulatedStart = clock.now();
    const read = await timed(() => readLiveState(c, desired, changed ? { changed } : {}));
    const simulatedMs = clock.now() - simulatedStart;
    const plan = await timed(() =>
      createPlan(desired, read.result, { ...PLAN_OPTIONS, ...(changed ? { changed } : {}) }),
    );
    return {
      requests: read.result.readRequests,
      simulatedMs,
      readMs: read.ms,
      planMs: plan.ms,
      changes: plan.result.changes.length,
    };
  } finally {
    await c.close();
  }
}

async function scopedPlan(): Promise<Figure[]> {
  const s = scenario();
  const repo = repository(s);
  const clock = new VirtualClock({ autoAdvance: true });
  const emulator = await startEmulator({ seed: s.live, clock });
  try {
    const head = await timed(() => loadConfig(["conf"], { cwd: repo }));
    const base = await timed(async () =>
      loadConfigAtRevision(["conf"], {
        cwd: repo,
        revision: await resolveRevision({ cwd: repo, env: process.env }, "main"),
      }),
    );
    const diff = await timed(() =>
      changedSince(base.result, head.result, { since: "main", commit: "bench" }),
    );
    const scoped = await plannedRead(emulator.origin, clock, head.result, diff.result);
    if (scoped.changes !== CHANGED.length)
      throw new Error(`bench: scoped plan has ${scoped.changes} changes`);
    const full = await plannedRead(emulator.origin, clock, head.result);
    const seconds = (ms: number) => Number((ms / 1000).toFixed(2));
    const ms = (x: number) => Math.round(x);
    return [
      {
        area: AREA,
        name: `read requests of a scoped plan (--changed-since) of a ${CHANGED.length}-campaign change among ${s.live.campaigns.length.toLocaleString("en-US")} campaigns (naive: the full plan's)`,
        value: scoped.requests,
        unit: "requests",
        target: { op: "<=", value: 10 },
        naive: full.requests,
      },
      {
        area: AREA,
        name: "read requests of the full plan of the same config",
        value: full.requests,
        unit: "requests",
      },
      {
        area: AREA,
        name: "scoped / full plan read requests",
        value: Number((scoped.requests / full.requests).toFixed(5)),
        unit: "x",
        target: { op: "<=", value: 0.01 },
      },
      {
        area: AREA,
        name: "simulated read time of the scoped plan at 100 GET/60s (naive: the full plan's)",
        value: seconds(scoped.simulatedMs),
        unit: "s",
        naive: seconds(full.simulatedMs),
      },
      {
        area: AREA,
        name: "simulated read time of the full plan at 100 GET/60s",
        value: seconds(full.simulatedMs),
        unit: "s",
      },
      {
        area: AREA,
        name: `scoped plan wall time: config loads, both revisions (${FILES} files each: working tree, then git)`,
        value: ms(head.ms + base.ms),
        unit: "ms",
      },
      { area: AREA, name: "  of which the load at REF through git", value: ms(base.ms), unit: "ms" },
      { area: AREA, name: "scoped plan wall time: change detection", value: ms(diff.ms), unit: "ms" },
      {
        area: AREA,
        name: "scoped plan wall time: reads (virtual clock: no waits)",
        value: ms(scoped.readMs),
        unit: "ms",
      },
      { area: AREA, name: "scoped plan wall time: planning", value: ms(scoped.planMs), unit: "ms" },
    ];
  } finally {
    await emulator.close();
    rmSync(repo, { recursive: true, force: true });
  }
}

/** Two full plans back to back, each its own run, against the published GET window. */
async function backToBack(): Promise<Figure[]> {
  const s = scenario();
  const dir = mkdtempSync(join(tmpdir(), "doohctl-bench-pacing-"));
  writeFileSync(join(dir, "doohctl.yaml"), s.configYaml);
  const desired = await loadConfig([], { cwd: dir });
  const clock = new VirtualClock({ autoAdvance: true });
  const emulator = await startEmulator({ seed: s.live, clock });
  const log = join(dir, "pacing.log");
  let refused = 0;
  let requests = 0;
  try {
    for (let run = 0; run < 2; run++) {
      const c = client(
        emulator.origin,
        clock,
        filePacingLog({
          path: log,
          now: () => clock.now(),
          keepMs: PUBLISHED_RATE_LIMITS.get.windowMs + 1_000,
        }),
      );
      try {
        const live = await readLiveState(c, desired);
        createPlan(desired, live, PLAN_OPTIONS);
        requests += live.readRequests;
        refused += c.stats().rateLimited;
      } finally {
        await c.close();
      }
    }
    return [
      {
        area: AREA,
        name: `429 answers drawn by two full plans back to back (${requests.toLocaleString("en-US")} GETs, pacing log shared)`,
        value: refused,
        unit: "",
        target: { op: "<=", value: 0 },
      },
    ];
  } finally {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const scopedBenchmark: Benchmark = {
  area: AREA,
  async run(): Promise<Figure[]> {
    return [...(await scopedPlan()), ...(await backToBack())];
  },
};
