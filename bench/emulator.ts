/**
 * Emulator benchmark (emulator issue, Performance), rate limits off, 10,000 campaigns loaded,
 * the emulator alone in a worker thread and the load generated from the main thread with an
 * undici Pool:
 * - list throughput: `GET /campaigns?page_size=100` over loopback, pages 0..99 in turn,
 *   against a bare node:http server answering a page of the same size under the same load;
 * - batch write: server time of a 100-item transactional `PATCH /campaigns`, one at a time,
 *   against a bare parse of its body and stringify of its answer.
 * Targets are on those ratios: a shared machine's load moves both sides together.
 */
import { Pool } from "undici";
import { DSP_BASE_PATH, SESSION_PATH } from "../src/model/wire.js";
import { type BareServer, startBareServer } from "./bare-server.js";
import { startEmulatorWorker } from "./emulator-worker.js";
import type { Benchmark, Figure } from "./figures.js";
import { BENCH_SCENARIO, generateScenario } from "./scenario.js";

const AREA = "emulator";
const CONNECTIONS = 16;
const IN_FLIGHT = 32;
const WARMUP_MS = 1_000;
/** Warm-up before each later window: the connections are open and the code is hot. */
const REWARM_MS = 250;
const WINDOWS = 3;
const WINDOW_MS = 1_500;
const PATCHES = 200;

export const BENCH_USER = { email: "bench@doohctl.test", password: "bench-password" };

/** Logs in once and returns the Cookie header value (never printed). */
export async function sessionCookie(pool: Pool): Promise<string> {
  const response = await pool.request({
    method: "POST",
    path: SESSION_PATH,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(BENCH_USER),
  });
  await response.body.dump();
  const setCookie = response.headers["set-cookie"];
  const cookie = (Array.isArray(setCookie) ? setCookie[0] : setCookie)?.split(";")[0];
  if (response.statusCode !== 200 || !cookie) throw new Error(`bench login answered ${response.statusCode}`);
  return cookie;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

function listPath(page: number): string {
  return `${DSP_BASE_PATH}/campaigns?page_size=100&page=${page % 100}`;
}

/**
 * Completed list requests per second in one window of `WINDOW_MS`, `IN_FLIGHT` requests
 * kept in flight from `warmupMs` before it (connections, JIT) to its end.
 */
async function listRate(pool: Pool, cookie: string, warmupMs: number): Promise<number> {
  let running = true;
  let completed = 0;
  let page = 0;
  const loop = async () => {
    while (running) {
      const path = listPath(page++);
      const response = await pool.request({ method: "GET", path, headers: { cookie } });
      await response.body.arrayBuffer();
      if (response.statusCode !== 200) throw new Error(`GET ${path} answered ${response.statusCode}`);
      completed++;
    }
  };
  const loops = Array.from({ length: IN_FLIGHT }, loop);
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  await pause(warmupMs);
  completed = 0;
  const start = performance.now();
  await pause(WINDOW_MS);
  const rate = completed / ((performance.now() - start) / 1000);
  running = false;
  await Promise.all(loops);
  return rate;
}

/**
 * List requests per second of the emulator and of the bare server (`bare-server.ts`), same
 * load: `WINDOWS` windows each, taking turns (a neighbour's load comes and goes over seconds
 * and must fall on both sides of the ratio), and the best of each (a shared machine's
 * neighbours only ever slow a window).
 */
async function listThroughput(
  emulator: Pool,
  bare: Pool,
  cookie: string,
): Promise<{ emulator: number; bare: number }> {
  const best = { emulator: 0, bare: 0 };
  for (let w = 0; w < WINDOWS; w++) {
    const warmupMs = w === 0 ? WARMUP_MS : REWARM_MS;
    best.bare = Math.max(best.bare, await listRate(bare, cookie, warmupMs));
    best.emulator = Math.max(best.emulator, await listRate(emulator, cookie, warmupMs));
  }
  return best;
}

/** The body the bare server answers: a list page as the emulator answers it. */
async function listPage(pool: Pool, cookie: string): Promise<Uint8Array> {
  const response = await pool.request({ method: "GET", path: listPath(0), headers: { cookie } });
  const body = new Uint8Array(await response.body.arrayBuffer());
  if (response.statusCode !== 200) throw new Error(`GET ${listPath(0)} answered ${response.statusCode}`);
  return body;
}

/**
 * Sends `PATCHES` 100-item batches one after another; returns their round-trip times and,
 * for each, a bare `JSON.parse` of the request body plus `JSON.stringify` of the answer: the
 * least any server answering it does, timed right after it so the same load falls on both.
 */
async function batchPatches(
  pool: Pool,
  cookie: string,
  campaignIds: readonly string[],
): Promise<{ roundTrips: number[]; bare: number[] }> {
  const roundTrips: number[] = [];
  const bare: number[] = [];
  for (let round = 0; round < PATCHES; round++) {
    const offset = (round * 100) % campaignIds.length;
    // Every round a real change: cpm and budget move each time, within G8's room.
    const campaigns = campaignIds.slice(offset, offset + 100).map((id) => ({
      id,
      cpm: { currency_code: "USD", units: String(9 + (round % 5)), nanos: 0 },
      budget_impressions: 10_000 + round,
    }));
    const body = JSON.stringify({ campaigns });
    const start = performance.now();
    const response = await pool.request({
      method: "PATCH",
      path: `${DSP_BASE_PATH}/campaigns`,
      headers: { cookie, "content-type": "application/json" },
      body,
    });
    const answerText = await response.body.text();
    roundTrips.push(performance.now() - start);
    if (response.statusCode !== 200) throw new Error(`PATCH /campaigns answered ${response.statusCode}`);
    const answer: unknown = JSON.parse(answerText);
    const bareStart = performance.now();
    JSON.parse(body);
    JSON.stringify(answer);
    bare.push(performance.now() - bareStart);
  }
  return { roundTrips, bare };
}

export const emulatorBenchmark: Benchmark = {
  area: AREA,
  async run(): Promise<Figure[]> {
    const campaignIds = generateScenario(BENCH_SCENARIO).live.campaigns.map((c) => c.id);
    const emulator = await startEmulatorWorker(BENCH_SCENARIO);
    const pool = new Pool(emulator.origin, { connections: CONNECTIONS, pipelining: 1 });
    let bareServer: BareServer | undefined;
    let barePool: Pool | undefined;
    try {
      const cookie = await sessionCookie(pool);
      const page = await listPage(pool, cookie);
      bareServer = await startBareServer(page);
      barePool = new Pool(bareServer.origin, { connections: CONNECTIONS, pipelining: 1 });
      const perSecond = await listThroughput(pool, barePool, cookie);
      await emulator.patchServerTimes(); // forget the warm-up's (there were none: lists only)
      const patches = await batchPatches(pool, cookie, campaignIds);
      const roundTrips = patches.roundTrips.sort((a, b) => a - b);
      const bare = patches.bare.sort((a, b) => a - b);
      const server = (await emulator.patchServerTimes()).sort((a, b) => a - b);
      if (server.length !== PATCHES)
        throw new Error(`expected ${PATCHES} PATCH timings, got ${server.length}`);
      const n = (x: number) => x.toLocaleString("en-US");
      const median = (sorted: readonly number[]) => percentile(sorted, 0.5);
      return [
        {
          area: AREA,
          name: `GET /campaigns?page_size=100 per second, ${n(campaignIds.length)} campaigns, limits off, ${IN_FLIGHT} in flight over ${CONNECTIONS} loopback connections, best of ${WINDOWS} windows of ${WINDOW_MS / 1000} s`,
          value: Math.round(perSecond.emulator),
          unit: "req/s",
        },
        {
          area: AREA,
          name: `bare node:http server answering a precomputed page of the same ${n(page.byteLength)} B, same load, windows taking turns with the emulator's`,
          value: Math.round(perSecond.bare),
          unit: "req/s",
        },
        {
          area: AREA,
          name: "emulator GETs per second / bare server's",
          value: Number((perSecond.emulator / perSecond.bare).toFixed(3)),
          unit: "x",
          // The required 2,000 req/s at a 26,668 req/s bare server (this machine, 2026-11-23
          // 23:39 UTC, load average 15): a ratio to a baseline of the same run moves far less
          // with the load than req/s.
          target: { op: ">=", value: 0.075 },
        },
        {
          area: AREA,
          name: `100-item transactional PATCH /campaigns, server time (request parsed to response sent, node:http diagnostics channels), median of ${PATCHES}`,
          value: Number(median(server).toFixed(2)),
          unit: "ms",
        },
        {
          area: AREA,
          name: "the same, 95th percentile server time",
          value: Number(percentile(server, 0.95).toFixed(2)),
          unit: "ms",
        },
        {
          area: AREA,
          name: "the same, median round trip seen by the sender",
          value: Number(percentile(roundTrips, 0.5).toFixed(2)),
          unit: "ms",
        },
        {
          area: AREA,
          name: `bare JSON.parse of the same request body and JSON.stringify of its answer, median of the same ${PATCHES}`,
          value: Number(median(bare).toFixed(3)),
          unit: "ms",
        },
        {
          area: AREA,
          name: "PATCH median server time / bare parse and stringify",
          value: Number((median(server) / median(bare)).toFixed(2)),
          unit: "x",
          // The required 5 ms at a 0.092 ms bare parse and stringify (this machine, 2026-11-23
          // 23:39 UTC, load average 15).
          target: { op: "<=", value: 54 },
        },
      ];
    } finally {
      await pool.close();
      await barePool?.close();
      await bareServer?.close();
      await emulator.close();
    }
  },
};
