/**
 * Start-up benchmark: cold `doohctl --help` and cold `doohctl validate` of a
 * one-campaign file, each a fresh process of the bin package.json names (the bundle users
 * run: scripts/bundle.ts), against a bare `node -e "import('commander')"` (the least any
 * commander CLI costs) in the same run, rounds taking turns so a busy neighbour slows all
 * three alike. The targets are on the ratios: each the median of the rounds' own ratios, so
 * a round is compared with the baseline run just before it, not with another minute's load.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { packageBin } from "../scripts/package-bin.js";
import type { Benchmark, Figure } from "./figures.js";

const AREA = "startup";
const ROUNDS = 21;
// dist/bench/startup.js -> <repo>
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const MAIN = packageBin(ROOT);

const ONE_CAMPAIGN = [
  "version: 1",
  "insertion_orders:",
  '  - id: "1001"',
  "    campaigns:",
  "      - name: Malls",
  "        budget_impressions: 100000",
  "",
].join("\n");

/** Wall time of one child process, from spawn to exit, in ms. */
function timed(args: string[], cwd: string): number {
  const start = process.hrtime.bigint();
  execFileSync(process.execPath, args, { cwd, stdio: "ignore", env: { ...process.env, NO_COLOR: "1" } });
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

async function run(): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), "doohctl-bench-startup-"));
  try {
    writeFileSync(join(dir, "doohctl.yaml"), ONE_CAMPAIGN);
    const bare: number[] = [];
    const help: number[] = [];
    const validate: number[] = [];
    // One unmeasured round warms the file cache, as any second run of a command would find it.
    for (let round = 0; round <= ROUNDS; round++) {
      const b = timed(["-e", "import('commander')"], ROOT);
      const h = timed([MAIN, "--help"], dir);
      const v = timed([MAIN, "validate"], dir);
      if (round === 0) continue;
      bare.push(b);
      help.push(h);
      validate.push(v);
    }
    const [b, h, v] = [median(bare), median(help), median(validate)];
    const ratio = (of: number[]) => median(of.map((ms, round) => ms / (bare[round] ?? Number.NaN)));
    const of = `cold process, median of ${ROUNDS}`;
    return [
      { area: AREA, name: `bare \`node -e "import('commander')"\`, ${of}`, value: round2(b), unit: "ms" },
      { area: AREA, name: `\`doohctl --help\`, ${of}`, value: round2(h), unit: "ms" },
      {
        area: AREA,
        name: `\`doohctl validate\` of a one-campaign file, ${of}`,
        value: round2(v),
        unit: "ms",
      },
      {
        area: AREA,
        name: "`doohctl --help` / bare import of commander",
        value: round2(ratio(help)),
        unit: "x",
        target: { op: "<=", value: 2 },
      },
      {
        area: AREA,
        name: "`doohctl validate` of one campaign / bare import of commander",
        value: round2(ratio(validate)),
        unit: "x",
        // Issue 45: the validators are compiled and the CLI bundled when doohctl is built.
        target: { op: "<=", value: 1.6 },
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const startupBenchmark: Benchmark = { area: AREA, run };
