/**
 * Client benchmark (client issue, Performance). The workload is what a plan of the benchmark
 * scenario reads most of: 10,000 campaigns by insertion order (200 `insertion_order_id`
 * values) and the targetings of 1,000 of them.
 * - At the published windows, emulator and client in one process on one VirtualClock
 *   (autoAdvance): GET requests against the minimum, simulated time against the window bound.
 * - With limits off, the emulator in a worker thread: GETs per second the client sustains,
 *   against bare undici requests of the same GETs to the same emulator (the target's ratio).
 * - The same against the emulator's richer answers (G14: every object carrying twice its
 *   members, six-digit times), as a ratio to the plain emulator's ratio in the same run: what
 *   the tolerant reader costs when a DSP answers more than the contract names.
 */
import { Pool } from "undici";
import { createDspClient } from "../src/api/client.js";
import type { DspClient } from "../src/api/types.js";
import type { AnswerMode } from "../src/emulator/index.js";
import { PUBLISHED_RATE_LIMITS, type RateLimits, type RateWindow } from "../src/model/limits.js";
import { MAX_PAGE_SIZE } from "../src/model/wire.js";
import { BENCH_USER, sessionCookie } from "./emulator.js";
import { startEmulatorWorker } from "./emulator-worker.js";
import type { Benchmark, Figure } from "./figures.js";
import { BENCH_SCENARIO, generateScenario } from "./scenario.js";
import { withSimulatedDsp } from "./simulated.js";

const AREA = "client";
const TARGETING_READS = 1_000;
const THROUGHPUT_ROUNDS = 9;
/** The client's default GET concurrency, so the baseline has as many requests in flight. */
const BARE_IN_FLIGHT = 8;

/**
 * The earliest the last of `requests` can be sent under a sliding window that admits
 * `limit` per `windowMs` from a standing start: the first `limit` go at once, and each
 * further `limit` one window later. (`requests / limit * window`, the rough form, counts
 * the first, free window too and so overstates the bound by up to one window.)
 */
export function windowBoundMs(requests: number, window: RateWindow): number {
  return requests <= 0 ? 0 : Math.floor((requests - 1) / window.limit) * window.windowMs;
}

const UNLIMITED: RateWindow = { limit: 1_000_000_000, windowMs: 1 };
const NO_LIMITS: RateLimits = { get: UNLIMITED, write: UNLIMITED, session: UNLIMITED };

interface Workload {
  insertionOrderIds: string[];
  targetingIds: string[];
  campaigns: number;
}

function workload(): Workload {
  const { live } = generateScenario(BENCH_SCENARIO);
  const step = Math.floor(live.campaigns.length / TARGETING_READS);
  return {
    insertionOrderIds: live.insertion_orders.map((io) => io.id),
    targetingIds: live.campaigns.filter((_, i) => i % step === 0).map((c) => c.id),
    campaigns: live.campaigns.length,
  };
}

async function read(client: DspClient, w: Workload): Promise<void> {
  const campaigns = await client.listCampaignsByInsertionOrder(w.insertionOrderIds);
  const targetings = await client.getTargetings(w.targetingIds);
  if (campaigns.length !== w.campaigns || targetings.size !== w.targetingIds.length) {
    throw new Error(`client bench read ${campaigns.length} campaigns and ${targetings.size} targetings`);
  }
}

async function atPublishedWindows(w: Workload): Promise<Figure[]> {
  return withSimulatedDsp(generateScenario(BENCH_SCENARIO).live, async ({ clock, client }) => {
    const before = client.stats();
    // Start the measured read from a clear window, as a fresh run does.
    await clock.sleep(PUBLISHED_RATE_LIMITS.get.windowMs + 1);
    const start = clock.now();
    await read(client, w);
    const simulatedMs = clock.now() - start;
    const after = client.stats();
    const requests = after.reads - before.reads;
    const minimum = Math.ceil(w.campaigns / MAX_PAGE_SIZE) + w.targetingIds.length;
    // One object per request: GET /campaigns/{id} for each campaign, plus the targetings.
    const naive = w.campaigns + w.targetingIds.length;
    const bound = windowBoundMs(minimum, PUBLISHED_RATE_LIMITS.get);
    const seconds = (ms: number) => Number((ms / 1000).toFixed(2));
    return [
      {
        area: AREA,
        name: `GET requests to read ${w.campaigns.toLocaleString("en-US")} campaigns and ${w.targetingIds.length.toLocaleString("en-US")} targetings (bound: ceil(campaigns / 100) + targetings)`,
        value: requests,
        unit: "requests",
        target: { op: "<=", value: minimum },
        bound: minimum,
        naive,
      },
      {
        area: AREA,
        name: "simulated time of that read at 100 GET/60s (bound: the earliest the last request may leave the window)",
        value: seconds(simulatedMs),
        unit: "s",
        bound: seconds(bound),
        naive: seconds(windowBoundMs(naive, PUBLISHED_RATE_LIMITS.get)),
      },
      {
        area: AREA,
        name: "simulated time / window bound",
        value: Number((simulatedMs / bound).toFixed(5)),
        unit: "x",
        target: { op: "<=", value: 1.03 },
      },
      {
        area: AREA,
        name: "429 answers drawn by that read",
        value: after.rateLimited - before.rateLimited,
        unit: "",
        target: { op: "<=", value: 0 },
      },
    ];
  });
}

/**
 * The client's baseline: the same GETs (`paths`, as the client sent them) as bare undici
 * requests against the same emulator, `BARE_IN_FLIGHT` at a time, each answer read to the
 * end and nothing else: no pacing, no parsing, no validation. Returns the seconds taken.
 */
async function bareRead(pool: Pool, cookie: string, paths: readonly string[]): Promise<number> {
  let next = 0;
  const loop = async () => {
    while (next < paths.length) {
      const path = paths[next++]!;
      const response = await pool.request({ method: "GET", path, headers: { cookie } });
      await response.body.arrayBuffer();
      if (response.statusCode !== 200) throw new Error(`GET ${path} answered ${response.statusCode}`);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: BARE_IN_FLIGHT }, loop));
  return (performance.now() - start) / 1000;
}

/** One emulator in a worker, the client and a bare undici pool against it, warmed up. */
interface Rig {
  /** One round: the client's read, then the same GETs bare; GETs per second of each. */
  round(): Promise<{ client: number; bare: number }>;
  gets: number;
  paths: number;
  close(): Promise<void>;
}

async function rig(w: Workload, answers: AnswerMode): Promise<Rig> {
  const emulator = await startEmulatorWorker(BENCH_SCENARIO, answers);
  const client = createDspClient({
    apiOrigin: emulator.origin,
    environment: "production",
    credentials: BENCH_USER,
    rateLimits: NO_LIMITS,
  });
  const pool = new Pool(emulator.origin, { connections: BARE_IN_FLIGHT, pipelining: 1 });
  await read(client, w); // warm-up: connections, session, JIT
  const paths = await emulator.getPaths();
  const cookie = await sessionCookie(pool);
  await bareRead(pool, cookie, paths); // its warm-up
  const measured = { gets: 0 };
  return {
    async round() {
      const before = client.stats().reads;
      const start = performance.now();
      await read(client, w);
      measured.gets = client.stats().reads - before;
      const rate = measured.gets / ((performance.now() - start) / 1000);
      return { client: rate, bare: paths.length / (await bareRead(pool, cookie, paths)) };
    },
    get gets() {
      return measured.gets;
    },
    paths: paths.length,
    close: async () => {
      await pool.close();
      await client.close();
      await emulator.close();
    },
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Best client and bare GETs per second of each rig over the rounds. */
interface Throughput {
  client: number;
  bare: number;
  gets: number;
  paths: number;
}

async function limitsOff(w: Workload): Promise<Figure[]> {
  const rigs = [await rig(w, "contract"), await rig(w, "richer")];
  const best: Throughput[] = rigs.map((r) => ({ client: 0, bare: 0, gets: 0, paths: r.paths }));
  /** Per round: (client / bare, richer) / (client / bare, plain), all four measured back to back. */
  const richerRatios: number[] = [];
  try {
    // Rounds taking turns, plain and richer, client and bare, so a neighbour's load falls on
    // every side of the ratios; the best of each rate: a shared machine's neighbours only ever
    // slow a round down.
    for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
      const rates: number[] = [];
      for (const [i, r] of rigs.entries()) {
        const { client, bare } = await r.round();
        const b = best[i]!;
        b.client = Math.max(b.client, client);
        b.bare = Math.max(b.bare, bare);
        b.gets = r.gets;
        rates.push(client / bare);
      }
      richerRatios.push(rates[1]! / rates[0]!);
    }
  } finally {
    for (const r of rigs) await r.close();
  }
  const [plain, richer] = best as [Throughput, Throughput];
  const ratio = plain.client / plain.bare;
  return [
    {
      area: AREA,
      name: `client GETs per second, limits off, emulator in a worker thread (the ${plain.gets.toLocaleString("en-US")} GETs of the read above, best of ${THROUGHPUT_ROUNDS} rounds)`,
      value: Math.round(plain.client),
      unit: "req/s",
    },
    {
      area: AREA,
      name: `bare undici GETs per second: the same ${plain.paths.toLocaleString("en-US")} requests against the same emulator, ${BARE_IN_FLIGHT} in flight, answers read and nothing else, rounds taking turns with the client's`,
      value: Math.round(plain.bare),
      unit: "req/s",
    },
    {
      area: AREA,
      name: "client GETs per second / bare undici's",
      value: Number(ratio.toFixed(3)),
      unit: "x",
      // The required 1,500 req/s at an 11,557 req/s bare undici read (this machine,
      // 2026-11-23 23:39 UTC, load average 15): a ratio to a baseline of the same run moves
      // far less with the load than req/s.
      target: { op: ">=", value: 0.13 },
    },
    {
      area: AREA,
      name: `client GETs per second against the richer emulator (--answers richer: every object with twice its members, six-digit times; same ${richer.gets.toLocaleString("en-US")} GETs, best of ${THROUGHPUT_ROUNDS} rounds)`,
      value: Math.round(richer.client),
      unit: "req/s",
    },
    {
      area: AREA,
      name: "bare undici GETs per second against the richer emulator, as above",
      value: Math.round(richer.bare),
      unit: "req/s",
    },
    {
      area: AREA,
      name: `client / bare undici against the richer emulator, as a ratio to the same against the plain emulator (G14: what the tolerant reader costs), median of the ${THROUGHPUT_ROUNDS} rounds, each measured back to back`,
      // The median of the rounds' ratios: each compares four measurements taken back to back,
      // where a ratio of bests would pair rounds minutes apart on a machine whose load moves.
      value: Number(median(richerRatios).toFixed(3)),
      unit: "x",
      // What the tolerant reader may cost (G14): at least 0.9 of the plain emulator's ratio, same run.
      target: { op: ">=", value: 0.9 },
    },
  ];
}

export const clientBenchmark: Benchmark = {
  area: AREA,
  async run(): Promise<Figure[]> {
    const w = workload();
    return [...(await atPublishedWindows(w)), ...(await limitsOff(w))];
  },
};
