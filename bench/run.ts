/**
 * `npm run bench`: every benchmark of the project, one after another on this machine. Writes
 * bench/results.json and prints a Markdown table: each figure, its target, and where it
 * applies the ratio to the theoretical bound and to the one-object-per-request approach.
 * Timing lives here, never in tests: the machines are shared and noisy.
 *
 * `npm run bench -- client apply` runs only those areas and leaves results.json alone, so
 * the committed file always holds one whole run. `BENCH_QUICK=1 npm run bench` runs every
 * area but `scale` (the 100,000-campaign figures, about two minutes) and is partial too.
 */
import { writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { accountsBenchmark } from "./accounts.js";
import { applyBenchmark } from "./apply.js";
import { clientBenchmark } from "./client.js";
import { configBenchmark } from "./config.js";
import { dialectBenchmark } from "./dialect.js";
import { emulatorBenchmark } from "./emulator.js";
import { type Benchmark, type Figure, markdownTable, meets } from "./figures.js";
import { pausesBenchmark } from "./pauses.js";
import { planBenchmark } from "./plan.js";
import { pullBenchmark } from "./pull.js";
import { scaleBenchmark } from "./scale.js";
import { scopedBenchmark } from "./scoped.js";
import { startupBenchmark } from "./startup.js";
import { statusBenchmark } from "./status.js";

const BENCHMARKS: Benchmark[] = [
  emulatorBenchmark,
  clientBenchmark,
  configBenchmark,
  planBenchmark,
  applyBenchmark,
  pausesBenchmark,
  scopedBenchmark,
  dialectBenchmark,
  statusBenchmark,
  startupBenchmark,
  pullBenchmark,
  accountsBenchmark,
  scaleBenchmark,
];

const only = process.argv.slice(2);
const unknown = only.filter((area) => !BENCHMARKS.some((b) => b.area === area));
if (unknown.length > 0) {
  throw new Error(
    `unknown bench area ${unknown.join(", ")}: use ${BENCHMARKS.map((b) => b.area).join(", ")}, or none for all`,
  );
}

/** The machine, and how busy it was: a loaded shared machine explains a slow figure. */
function machine() {
  const cores = cpus();
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpu: `${cores.length} x ${cores[0]?.model.trim() ?? "unknown"}`,
    memory_gib: Number((totalmem() / 2 ** 30).toFixed(1)),
    load_average_1m: Number((loadavg()[0] ?? 0).toFixed(2)),
  };
}

/** Areas a quick run (`BENCH_QUICK=1`) leaves out: they take minutes. */
const SLOW_AREAS = ["scale"];
const quick = process.env.BENCH_QUICK === "1";

const startedAt = new Date();
const before = machine();
const figures: Figure[] = [];
const started = performance.now();
for (const benchmark of BENCHMARKS) {
  if (only.length > 0 && !only.includes(benchmark.area)) continue;
  if (quick && only.length === 0 && SLOW_AREAS.includes(benchmark.area)) continue;
  process.stderr.write(`bench: ${benchmark.area} ...\n`);
  figures.push(...(await benchmark.run()));
}
const seconds = Math.round((performance.now() - started) / 1000);

process.stdout.write(markdownTable(figures));
const missed = figures.filter((f) => meets(f) === false);
let where = "results.json left as it is (a partial run)";
if (quick && only.length === 0)
  where = `results.json left as it is (BENCH_QUICK=1 left out ${SLOW_AREAS.join(", ")})`;
else if (only.length === 0) {
  // dist/bench/run.js -> <repo>/bench/results.json
  const resultsPath = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "bench", "results.json");
  const results = {
    date: startedAt.toISOString(),
    ...before,
    load_average_1m_after: Number((loadavg()[0] ?? 0).toFixed(2)),
    duration_s: seconds,
    figures,
  };
  writeFileSync(resultsPath, `${JSON.stringify(results, null, 2)}\n`);
  where = "written to bench/results.json";
}
process.stdout.write(
  `\n${figures.length} figures, ${missed.length} below target, ${seconds} s; ${where}\n` +
    `machine: ${before.cpu}, ${before.memory_gib} GiB, Node.js ${before.node}, load average ${before.load_average_1m} at the start\n`,
);
