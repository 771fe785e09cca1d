/**
 * Runs a benchmark step in a fresh Node.js process (`bench/child.ts`). Memory figures need
 * it (a clean baseline), and timing one cold process per repetition is what a user's
 * `doohctl validate` or `plan` pays.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Runs `task` in a child process and returns what it printed, parsed. */
export function runChild<T>(task: string, args: readonly string[]): Promise<T> {
  const script = fileURLToPath(new URL("./child.js", import.meta.url));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--expose-gc", script, task, ...args],
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

/**
 * The fastest of `runs` child runs of `task`, by `key`. On a shared machine a slower run is
 * slower because of other processes, not because of the code: the fastest is the best
 * estimate of the code's own cost (the reasoning of Python's `timeit`).
 */
export async function fastestChild<T>(
  task: string,
  args: readonly string[],
  runs: number,
  key: (result: T) => number,
): Promise<T> {
  const results: T[] = [];
  for (let i = 0; i < runs; i++) results.push(await runChild<T>(task, args));
  return results.reduce((best, r) => (key(r) < key(best) ? r : best));
}
