import type { Clock } from "../model/clock.js";
import { terminalText } from "../model/printable.js";

/**
 * What a command may touch of the outside world. `main.ts` passes the real process; tests
 * pass buffers. Nothing below `src/cli` reads argv, env or stdin, or sets the exit code.
 */
export interface TextSink {
  write(text: string): void;
  /** True when the sink is a terminal: progress bars, prompts and colour need one. */
  isTTY: boolean;
  /** The terminal's width, when it is one: a redrawn progress line must fit in it. */
  readonly columns?: number | undefined;
}

export interface CliIO {
  stdout: TextSink;
  stderr: TextSink;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /**
   * The one clock of a run: "now" for plans, status and records, and every wait. main.ts passes
   * the system clock; the demo and tests pass one they share with the emulator.
   */
  clock: Clock;
  /**
   * Reads one line from the terminal, after discarding what was typed before the question;
   * undefined when stdin is not a TTY. Rejects with PromptInterrupted on Ctrl-C.
   */
  prompt?: (question: string) => Promise<string>;
  /**
   * Called on every SIGINT/SIGTERM while subscribed: long-running commands subscribe to stop
   * cleanly, and decide what a later signal does (apply: docs/apply.md, Interrupting).
   */
  onInterrupt?: (listener: (signal: InterruptSignal) => void) => () => void;
  /** Ends the process now with `code`: a second Ctrl-C on a terminal (main.ts calls process.exit). */
  exitNow?: (code: number) => void;
}

/**
 * The one way out of the process (ARCHITECTURE.md#output-at-the-boundary): `run` (program.ts)
 * gives every command these streams and this prompt, so whatever doohctl writes, in any format
 * and from any message, passes `terminalText`: no character from the DSP, a file or the
 * environment acts on a terminal; only doohctl's own colour and redraws do.
 */
export function atBoundary(io: CliIO): CliIO {
  const guarded = (sink: TextSink): TextSink => ({
    write: (text) => sink.write(terminalText(text)),
    isTTY: sink.isTTY,
    get columns() {
      return sink.columns;
    },
  });
  const { prompt } = io;
  return {
    ...io,
    stdout: guarded(io.stdout),
    stderr: guarded(io.stderr),
    ...(prompt ? { prompt: (question: string) => prompt(terminalText(question)) } : {}),
  };
}

/**
 * A person at a terminal: stdin (`prompt` exists only then, main.ts) and stderr are TTYs.
 * Without one (CI, a pipe, a service manager) nobody can press a key to choose.
 */
export function onTerminal(io: CliIO): boolean {
  return io.prompt !== undefined && io.stderr.isTTY;
}

export type InterruptSignal = "SIGINT" | "SIGTERM";

/** Ctrl-C at a prompt: nothing was decided, nothing is sent. */
export class PromptInterrupted extends Error {
  override readonly name = "PromptInterrupted";
  readonly code = "PROMPT_INTERRUPTED";
}

/** Exit codes (ARCHITECTURE.md#commands); 128 + the signal number after an interruption. */
export const EXIT = { ok: 0, error: 1, changes: 2, SIGINT: 130, SIGTERM: 143 } as const;

/** Colour only on a TTY and never with NO_COLOR (ARCHITECTURE.md#commands). */
export function useColour(io: CliIO, sink: TextSink = io.stdout): boolean {
  return sink.isTTY && io.env.NO_COLOR === undefined;
}
