/**
 * Config benchmark: load and validate the benchmark scenario's config (200 insertion orders,
 * 10,000 campaigns with targetings and creatives, in 10 files) against a bare
 * `yaml.parseDocument` of the same files, the reading every config goes through. Each
 * measurement is a cold child process, as `doohctl validate` is; the two take turns, and the
 * fastest of three of each is reported. The target is on the ratio to the bare parse, timed
 * in the same run: what loading adds on top of reading the YAML.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isMap, isSeq, parseDocument } from "yaml";
import { loadConfig } from "../src/config/load.js";
import type { Benchmark, Figure } from "./figures.js";
import { childRunsInTurns, fastest } from "./fork.js";
import { measurePeak } from "./memory.js";
import { BENCH_SCENARIO, configFiles, generateScenario, type ScenarioOptions } from "./scenario.js";

const AREA = "config";
const FILES = 10;
const RUNS = 3;

interface LoadResult {
  ms: number;
  peakRssMb: number;
  heapMb: number;
  campaigns: number;
  bytes: number;
}

/** Writes the scenario's config as `FILES` YAML files into a new temporary directory. */
export function writeScenarioConfig(options: ScenarioOptions): { dir: string; bytes: number } {
  const dir = mkdtempSync(join(tmpdir(), "doohctl-bench-"));
  let bytes = 0;
  for (const file of configFiles(generateScenario(options), FILES)) {
    writeFileSync(join(dir, file.name), file.text);
    bytes += Buffer.byteLength(file.text);
  }
  return { dir, bytes };
}

async function yamlFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n.endsWith(".yaml")).sort();
}

/** Child task: `loadConfig` of the directory, as `doohctl validate DIR` does it. */
export async function loadTask([dir = ""]: string[]): Promise<LoadResult> {
  const measured = await measurePeak(() => loadConfig([dir], { cwd: dir }));
  return {
    ms: measured.ms,
    peakRssMb: measured.peakRssMb,
    heapMb: measured.heapMb,
    campaigns: measured.result.insertionOrders.reduce((n, io) => n + io.campaigns.length, 0),
    bytes: 0,
  };
}

/** Child task: reading the same files and `yaml.parseDocument` of each, nothing else. */
export async function yamlTask([dir = ""]: string[]): Promise<LoadResult> {
  // Campaigns are counted on the document tree: a conversion to plain data would add work.
  return bareParse(dir, (text) => {
    const orders = parseDocument(text).get("insertion_orders");
    if (!isSeq(orders)) return 0;
    return orders.items.reduce((n: number, io) => {
      const campaigns = isMap(io) ? io.get("campaigns") : undefined;
      return n + (isSeq(campaigns) ? campaigns.items.length : 0);
    }, 0);
  });
}

async function bareParse(dir: string, parseOne: (text: string) => number): Promise<LoadResult> {
  const names = await yamlFiles(dir);
  let bytes = 0;
  const measured = await measurePeak(async () => {
    let count = 0;
    for (const name of names) {
      const text = await readFile(join(dir, name), "utf8");
      bytes += text.length;
      count += parseOne(text);
    }
    return count;
  });
  return {
    ms: measured.ms,
    peakRssMb: measured.peakRssMb,
    heapMb: measured.heapMb,
    campaigns: measured.result,
    bytes,
  };
}

export const configBenchmark: Benchmark = {
  area: AREA,
  async run(): Promise<Figure[]> {
    const { dir, bytes } = writeScenarioConfig(BENCH_SCENARIO);
    try {
      const runs = await childRunsInTurns<LoadResult>(
        ["config-load", "yaml-parse"].map((task) => ({ task, args: [dir] })),
        RUNS,
      );
      const [load, bare] = runs.map((results) => fastest(results, (r) => r.ms)) as [LoadResult, LoadResult];
      if (load.campaigns !== bare.campaigns) {
        throw new Error(
          `config bench: loaded ${load.campaigns} campaigns but the files hold ${bare.campaigns}`,
        );
      }
      const mb = (bytes / 2 ** 20).toFixed(1);
      return [
        {
          area: AREA,
          name: `load and validate ${load.campaigns.toLocaleString("en-US")} campaigns (${FILES} files, ${mb} MiB), cold process, fastest of ${RUNS}`,
          value: Math.round(load.ms),
          unit: "ms",
        },
        {
          area: AREA,
          name: "peak RSS growth while loading",
          value: Math.round(load.peakRssMb),
          unit: "MiB",
          target: { op: "<=", value: 300 },
        },
        {
          area: AREA,
          name: "bare `yaml.parseDocument` of the same files, cold process, fastest of 3",
          value: Math.round(bare.ms),
          unit: "ms",
        },
        {
          area: AREA,
          name: "load and validate time / bare `yaml.parseDocument` time",
          value: Number((load.ms / bare.ms).toFixed(2)),
          unit: "x",
          // Reading the YAML is the floor of a load; checking, normalizing and indexing
          // positions may add at most 60% on top. A ratio to a baseline timed in the same
          // run moves far less with the machine's load than milliseconds do.
          target: { op: "<=", value: 1.6 },
        },
        {
          area: AREA,
          name: "peak RSS growth of the bare `yaml.parseDocument`",
          value: Math.round(bare.peakRssMb),
          unit: "MiB",
        },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
