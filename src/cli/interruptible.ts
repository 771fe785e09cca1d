/**
 * Ctrl-C or SIGTERM during a command that only reads (plan, status): nothing to undo, so it
 * stops at once, saying so in its format (JSON: an `INTERRUPTED` error, never nothing), exit
 * 128 + the signal (README.md, Exit codes). apply has its own (commands/apply-interrupt.ts).
 */
import { reportError } from "./errors.js";
import { type CliIO, EXIT, type InterruptSignal } from "./io.js";

export class CommandInterrupted extends Error {
  override readonly name = "CommandInterrupted";
  readonly code = "INTERRUPTED";
  constructor(readonly signal: InterruptSignal) {
    super(`interrupted by ${signal}: stopped while reading, nothing was written to the DSP`);
  }
}

/**
 * Runs `work` with output that stops at the first signal, whose report is the last word; main.ts
 * exits there (`exitNow`), tests get its exit code once `work` has ended unseen.
 */
export async function interruptible(
  io: CliIO,
  options: { command: string; format: string | undefined },
  work: (io: CliIO) => Promise<number>,
): Promise<number> {
  if (!io.onInterrupt) return work(io);
  let stopped = false;
  const gate = (sink: CliIO["stdout"]): CliIO["stdout"] => ({
    write: (text) => {
      if (!stopped) sink.write(text);
    },
    isTTY: sink.isTTY,
    get columns() {
      return sink.columns;
    },
  });
  let off = () => {};
  const interrupted = new Promise<number>((resolve) => {
    off =
      io.onInterrupt?.((signal) => {
        if (stopped) return;
        stopped = true;
        reportError(io, options.command, new CommandInterrupted(signal), options.format);
        io.exitNow?.(EXIT[signal]);
        resolve(EXIT[signal]);
      }) ?? off;
  });
  const running = work({ ...io, stdout: gate(io.stdout), stderr: gate(io.stderr) });
  try {
    const code = await Promise.race([running, interrupted]);
    if (!stopped) return code;
    // Only without exitNow (tests): the reads end unseen, their outcome, an error too, unshown.
    await running.catch(() => {});
    return interrupted;
  } finally {
    off();
  }
}
