/**
 * `npm run bench`: every benchmark of the project, one after another on this machine. Writes
 * bench/results.json and prints a Markdown table: each figure, its target, and where it
 * applies the ratio to the theoretical bound and to the one-object-per-request approach.
 * Timing lives here, never in tests: the machines are shared and noisy.
 */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { clientBenchmark } from "./client.js";
import { configBenchmark } from "./config.js";
import { emulatorBenchmark } from "./emulator.js";
import { type Benchmark, type Figure, markdownTable, meets } from "./figures.js";
import { planBenchmark } from "./plan.js";

const BENCHMARKS: Benchmark[] = [emulatorBenchmark, clientBenchmark, configBenchmark, planBenchmark];

const only = process.argv.slice(2);
const figures: Figure[] = [];
for (const benchmark of BENCHMARKS) {
  if (only.length > 0 && !only.includes(benchmark.area)) continue;
  process.stderr.write(`bench: ${benchmark.area} ...\n`);
  figures.push(...(await benchmark.run()));
}

// dist/bench/run.js -> <repo>/bench/results.json
const resultsPath = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "bench", "results.json");
writeFileSync(
  resultsPath,
  `${JSON.stringify({ node: process.version, platform: `${process.platform}-${process.arch}`, date: new Date().toISOString(), figures }, null, 2)}\n`,
);
process.stdout.write(markdownTable(figures));
const missed = figures.filter((f) => meets(f) === false);
process.stdout.write(
  `\n${figures.length} figures, ${missed.length} below target; written to bench/results.json\n`,
);
