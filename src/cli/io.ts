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
  /** Reads one line from the terminal; undefined when stdin is not a TTY. */
  prompt?: (question: string) => Promise<string>;
  /** Called on SIGINT/SIGTERM: long-running commands subscribe to stop cleanly. */
  onInterrupt?: (listener: () => void) => () => void;
}

/** Exit codes (design.md, Commands). */
export const EXIT = { ok: 0, error: 1, changes: 2 } as const;

/** Colour only on a TTY and never with NO_COLOR (design.md, Commands). */
export function useColour(io: CliIO, sink: TextSink = io.stdout): boolean {
  return sink.isTTY && io.env.NO_COLOR === undefined;
}
