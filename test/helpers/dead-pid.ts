/**
 * A pid that surely ran and is surely gone, for the records and locks a test leaves behind
 * by a dead process: a child that has exited. `true`, not node: only its pid is wanted, and a
 * node child took 0.1 s of CPU to start.
 */
import { spawnSync } from "node:child_process";

export function deadPid(): number {
  const { pid, error } = spawnSync("true");
  if (error || !pid) throw new Error(`could not start true: ${error?.message ?? "no pid"}`);
  return pid;
}
