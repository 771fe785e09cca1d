/**
 * How a GitHub runner cancels a step (a cancelled run, a timed-out job): SIGINT to the step's
 * process, SIGTERM 7.5 s later, SIGKILL 2.5 s after that, each only while the process is still
 * running. docs/apply.md (Interrupting) says what doohctl does with each.
 */
import type { ChildProcess } from "node:child_process";

export const GITHUB_CANCEL = { termAfterMs: 7_500, killAfterMs: 2_500 } as const;

/**
 * Sends the runner's sequence to `child` and resolves, once it exited, with the signals that
 * were sent (a process that exits early gets no further signal) and when each was sent.
 */
export async function cancelLikeGitHub(
  child: ChildProcess,
  exited: Promise<unknown>,
  options: { onSent?: (signal: NodeJS.Signals) => void } = {},
): Promise<{ sent: NodeJS.Signals[]; at: Record<string, number> }> {
  let done = false;
  void exited.then(() => {
    done = true;
  });
  const sent: NodeJS.Signals[] = [];
  const at: Record<string, number> = {};
  const start = Date.now();
  const send = (signal: NodeJS.Signals) => {
    if (done) return;
    child.kill(signal);
    sent.push(signal);
    at[signal] = Date.now() - start;
    options.onSent?.(signal);
  };
  const after = (ms: number) =>
    Promise.race([exited, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
  send("SIGINT");
  await after(GITHUB_CANCEL.termAfterMs);
  send("SIGTERM");
  await after(GITHUB_CANCEL.killAfterMs);
  send("SIGKILL");
  await exited;
  return { sent, at };
}
