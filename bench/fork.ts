/**
 * Runs a benchmark step in a fresh Node.js process (`bench/child.ts`). Memory figures need
 * it (a clean baseline), and timing one cold process per repetition is what a user's
 * `doohctl validate` or `plan` pays.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Runs `task` in a child process and returns what it printed, parsed. `nodeArgs` go before
 * the script (e.g. `--max-old-space-size`, for the 100,000-campaign figures of `scale.ts`).
 */
export function runChild<T>(
  task: string,
  args: readonly string[],
  nodeArgs: readonly string[] = [],
): Promise<T> {
  const script = fileURLToPath(new URL("./child.js", import.meta.url));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--expose-gc", ...nodeArgs, script, task, ...args],
      { maxBuffer: 16 * 2 ** 20 },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`bench child ${task} failed: ${error.message}\n${stderr}`));
          return;
        }
        resolve(JSON.parse(stdout) as T);
      },
    );
  });
}

export interface ChildRun {
  task: string;
  args: readonly string[];
  nodeArgs?: readonly string[];
}

/**
 * `runs` cold runs of each child, the children taking turns (a, b, a, b, ...). A figure
 * compared with a baseline of the same run must see the same machine: a neighbour's load
 * comes and goes over seconds, and running all of one child first would let it land on one
 * side of the ratio only.
 */
export async function childRunsInTurns<T>(children: readonly ChildRun[], runs: number): Promise<T[][]> {
  const results: T[][] = children.map(() => []);
  for (let run = 0; run < runs; run++) {
    for (const [i, { task, args, nodeArgs }] of children.entries()) {
      results[i]!.push(await runChild<T>(task, args, nodeArgs));
    }
  }
  return results;
}

/**
 * The fastest of `results` by `key`. On a shared machine a slower run is slower because of
 * other processes, not because of the code: the fastest is the best estimate of the code's
 * own cost (the reasoning of Python's `timeit`).
 */
export function fastest<T>(results: readonly T[], key: (result: T) => number): T {
  if (results.length === 0) throw new Error("bench: no runs to choose the fastest of");
  return results.reduce((best, r) => (key(r) < key(best) ? r : best));
}
