/**
 * Many accounts. Twenty accounts of 1,000 campaigns each, each its own
 * emulator, API user and rate windows (the published ones), each planned by its own client
 * with its own pacing log, as twenty CI matrix jobs would: one alone on its own virtual clock,
 * then all twenty at once on one. The slowest account's simulated time over the lone
 * account's is what fanning out costs an account: the bound is each user's windows, not the
 * machine (docs/performance.md). Simulated time counts the windows' waits, not CPU: here the
 * twenty share one process, twenty CI runners would not. Then the combined comment of the
 * twenty plans (`doohctl show plan-*.json --format markdown`) against twenty single comments.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDspClient } from "../src/api/client.js";
import { filePacingLog, pacingLogPath } from "../src/api/pacing-log.js";
import type { DspClient } from "../src/api/types.js";
import { loadConfig } from "../src/config/load.js";
import { type RunningEmulator, startEmulator } from "../src/emulator/index.js";
import { VirtualClock } from "../src/model/clock.js";
import type { DesiredState } from "../src/model/desired.js";
import { PUBLISHED_RATE_LIMITS } from "../src/model/limits.js";
import { deactivatingChangeIds } from "../src/plan/changes/changes.js";
import { createPlan } from "../src/plan/planner.js";
import { readLiveState } from "../src/plan/read.js";
import type { Plan } from "../src/plan/types.js";
import { renderMarkdown } from "../src/render/markdown.js";
import {
  accountSummary,
  COMMENT_MAX_CHARS,
  renderAccountsMarkdown,
} from "../src/render/markdown-accounts.js";
import { writeScenarioConfig } from "./config.js";
import type { Benchmark, Figure } from "./figures.js";
import { PLAN_OPTIONS } from "./plan.js";
import { generateScenario, type Scenario, type ScenarioOptions } from "./scenario.js";

const AREA = "accounts";
const ACCOUNTS = 20;
/** A tenth of the issues' scenario (bench/scenario.ts BENCH_SCENARIO): 1,000 campaigns. */
const ACCOUNT_SCENARIO: ScenarioOptions = {
  insertionOrders: 20,
  campaignsPerOrder: 50,
  creativesPerOrder: 2,
  campaignUpdates: 1_000,
  targetingChanges: 20,
  associationChanges: 100,
  seed: 8,
};
/** Rounds of the rendering comparison, the two taking turns; the fastest of each is kept. */
const RENDER_ROUNDS = 7;
/** Renderings of the twenty plans per round, so that a round lasts long enough to time. */
const RENDER_REPEATS = 10;

interface Account {
  name: string;
  emulator: RunningEmulator;
  client: DspClient;
}

interface JobResult {
  simulatedMs: number;
  plan: Plan;
  reads: number;
  rateLimited: number;
}

/** Twenty users of one DSP, one per account: `bench-03@doohctl.test`. */
function userOf(i: number) {
  return { email: `bench-${String(i).padStart(2, "0")}@doohctl.test`, password: "bench-password" };
}

/** The accounts' emulators and clients, all on `clock`. */
async function startAccounts(
  count: number,
  scenario: Scenario,
  clock: VirtualClock,
  stateDir: string,
): Promise<Account[]> {
  const accounts: Account[] = [];
  for (let i = 0; i < count; i++) {
    const user = userOf(i);
    const seed = { ...structuredClone(scenario.live), users: [{ ...user, account_id: "1" }] };
    const emulator = await startEmulator({ seed, clock });
    const keepMs = Math.max(...Object.values(PUBLISHED_RATE_LIMITS).map((w) => w.windowMs)) + 1_000;
    const client = createDspClient({
      apiOrigin: emulator.origin,
      environment: "production",
      credentials: user,
      rateLimits: PUBLISHED_RATE_LIMITS,
      clock,
      // As the CLI keys it (src/cli/connection.ts): one log per origin, environment and user.
      pacingLog: filePacingLog({
        path: pacingLogPath(stateDir, {
          origin: emulator.origin,
          environment: "production",
          email: user.email,
        }),
        now: () => clock.now(),
        keepMs,
      }),
    });
    accounts.push({ name: `account-${i}`, emulator, client });
  }
  return accounts;
}

/** One matrix job: log in, read the live state, plan. Simulated time from `start`. */
async function job(
  account: Account,
  desired: DesiredState,
  clock: VirtualClock,
  start: number,
): Promise<JobResult> {
  const live = await readLiveState(account.client, structuredClone(desired));
  const plan = createPlan(desired, live, {
    ...PLAN_OPTIONS,
    connection: { api_origin: account.emulator.origin, environment: "production" },
  });
  const stats = account.client.stats();
  return { simulatedMs: clock.now() - start, plan, reads: stats.reads, rateLimited: stats.rateLimited };
}

/** `count` accounts planned at once on one clock; wall time in ms too. */
async function planAccounts(
  count: number,
  scenario: Scenario,
  desired: DesiredState,
): Promise<{ results: JobResult[]; wallMs: number }> {
  const clock = new VirtualClock({ autoAdvance: true });
  const stateDir = mkdtempSync(join(tmpdir(), "doohctl-bench-accounts-"));
  const accounts = await startAccounts(count, scenario, clock, stateDir);
  try {
    const start = clock.now();
    const wallStart = performance.now();
    const results = await Promise.all(accounts.map((a) => job(a, desired, clock, start)));
    return { results, wallMs: performance.now() - wallStart };
  } finally {
    for (const a of accounts) {
      await a.client.close();
      await a.emulator.close();
    }
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** Milliseconds of `fn`, the fastest of `rounds`, two functions taking turns. */
function fastestInTurns(rounds: number, fns: readonly (() => void)[]): number[] {
  const best = fns.map(() => Number.POSITIVE_INFINITY);
  for (let r = 0; r < rounds; r++) {
    for (const [i, fn] of fns.entries()) {
      globalThis.gc?.();
      const start = performance.now();
      fn();
      best[i] = Math.min(best[i] ?? Number.POSITIVE_INFINITY, performance.now() - start);
    }
  }
  return best;
}

/**
 * The combined comment (the summary, every plan's Markdown, the cut to the comment's limit,
 * the complete text for `--overflow` piece by piece) against the twenty single comments.
 * Each rendering is measured to its bytes, as writing it joins a rope of pieces into one
 * string.
 */
function renderTimes(plans: readonly Plan[]): { singleMs: number; combinedMs: number; commentChars: number } {
  let commentChars = 0;
  const singles = () => {
    for (let k = 0; k < RENDER_REPEATS; k++) {
      for (const plan of plans) Buffer.byteLength(commentOf(plan));
    }
  };
  const combined = () => {
    for (let k = 0; k < RENDER_REPEATS; k++) {
      const summaries = plans.map((plan, i) =>
        accountSummary({
          account: `account-${String(i).padStart(2, "0")}`,
          file: `plan-account-${String(i).padStart(2, "0")}.json`,
          plan,
        }),
      );
      // As `show --overflow FILE` does: the complete comment goes out piece by piece.
      const { comment } = renderAccountsMarkdown(summaries, {
        maxChars: COMMENT_MAX_CHARS,
        markdownOf: (i) => commentOf(plans[i] as Plan),
        overflow: "comment.markdown",
        write: (text) => Buffer.byteLength(text),
      });
      commentChars = comment.length;
      Buffer.byteLength(comment);
    }
  };
  const [singleMs = 0, combinedMs = 0] = fastestInTurns(RENDER_ROUNDS, [singles, combined]);
  return { singleMs: singleMs / RENDER_REPEATS, combinedMs: combinedMs / RENDER_REPEATS, commentChars };
}

export const accountsBenchmark: Benchmark = {
  area: AREA,
  async run(): Promise<Figure[]> {
    const scenario = generateScenario(ACCOUNT_SCENARIO);
    const { dir } = writeScenarioConfig(ACCOUNT_SCENARIO);
    let desired: DesiredState;
    try {
      desired = await loadConfig([dir], { cwd: dir });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const alone = await planAccounts(1, scenario, desired);
    const parallel = await planAccounts(ACCOUNTS, scenario, desired);
    const one = alone.results[0];
    if (!one) throw new Error("accounts bench: no plan alone");
    for (const r of [one, ...parallel.results]) {
      const errors = r.plan.findings.filter((f) => f.severity === "error").length;
      if (errors > 0 || r.plan.changes.length === 0) {
        throw new Error(`accounts bench: a plan has ${errors} errors and ${r.plan.changes.length} changes`);
      }
    }
    const slowest = Math.max(...parallel.results.map((r) => r.simulatedMs));
    const rateLimited = parallel.results.reduce((n, r) => n + r.rateLimited, 0);
    const seconds = (ms: number) => Number((ms / 1000).toFixed(2));
    const n = (x: number) => x.toLocaleString("en-US");
    const render = renderTimes(parallel.results.map((r) => r.plan));
    const campaigns = scenario.live.campaigns.length;
    return [
      {
        area: AREA,
        name: `one account of ${n(campaigns)} campaigns planned alone at the published windows: ${n(one.reads)} reads, ${n(one.plan.changes.length)} changes; simulated time`,
        value: seconds(one.simulatedMs),
        unit: "s",
      },
      {
        area: AREA,
        name: `${ACCOUNTS} such accounts planned as ${ACCOUNTS} parallel jobs, each its own user, windows and pacing log, on one virtual clock: simulated time of the slowest (wall ${n(Math.round(parallel.wallMs))} ms)`,
        value: seconds(slowest),
        unit: "s",
        bound: seconds(one.simulatedMs),
      },
      {
        area: AREA,
        name: `slowest of ${ACCOUNTS} parallel accounts / one account alone (simulated time)`,
        value: Number((slowest / one.simulatedMs).toFixed(3)),
        unit: "x",
        target: { op: "<=", value: 1.1 },
      },
      {
        area: AREA,
        name: `429 answers drawn by the ${ACCOUNTS} parallel plans`,
        value: rateLimited,
        unit: "",
        target: { op: "<=", value: 0 },
      },
      {
        area: AREA,
        name: `combined comment of the ${ACCOUNTS} plans (summary, every plan's Markdown, cut to ${n(COMMENT_MAX_CHARS)} characters: ${n(render.commentChars)}, and the complete text for --overflow), fastest of ${RENDER_ROUNDS}`,
        value: Number(render.combinedMs.toFixed(2)),
        unit: "ms",
      },
      {
        area: AREA,
        name: `${ACCOUNTS} single comments of the same plans, fastest of ${RENDER_ROUNDS}`,
        value: Number(render.singleMs.toFixed(2)),
        unit: "ms",
      },
      {
        area: AREA,
        name: `combined comment / ${ACCOUNTS} single comments (rendering time)`,
        value: Number((render.combinedMs / render.singleMs).toFixed(3)),
        unit: "x",
        target: { op: "<=", value: 1.2 },
      },
    ];
  },
};

/** A plan's own comment, as `doohctl show --format markdown` renders it. */
function commentOf(plan: Plan): string {
  return renderMarkdown(plan, { deactivating: deactivatingChangeIds(plan.changes) });
}
