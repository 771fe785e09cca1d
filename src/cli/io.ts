import type { Clock } from "../model/clock.js";
import { terminalText } from "../model/printable.js";

/** What a command may touch of the outside world: `main.ts` passes the process, tests buffers. */
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
  /** The one clock of a run, "now" and every wait: the system's, or one shared with the emulator. */
  clock: Clock;
  /** One line from the terminal, type-ahead discarded; none without a TTY. Ctrl-C: PromptInterrupted. */
  prompt?: (question: string) => Promise<string>;
  /** Every SIGINT/SIGTERM while subscribed: a command stops cleanly (apply: docs/apply.md, Interrupting). */
  onInterrupt?: (listener: (signal: InterruptSignal) => void) => () => void;
  /** Ends the process now with `code`: a second Ctrl-C on a terminal (main.ts calls process.exit). */
  exitNow?: (code: number) => void;
}

/**
 * The one way out (ARCHITECTURE.md#output-at-the-boundary): every byte any command writes passes
 * `terminalText`, so nothing from the DSP, a file or the environment acts on a terminal.
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

/** A person at a terminal: stdin (`prompt`) and stderr are TTYs; else nobody can press a key. */
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
