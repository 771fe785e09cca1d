import type { CliIO } from "../../src/cli/io.js";
import type { Clock } from "../../src/model/clock.js";
import { suiteClock } from "./suite-clock.js";

/** A CliIO over string buffers, for running commands in-process. */
export function bufferIO(
  options: {
    env?: Record<string, string>;
    cwd?: string;
    tty?: boolean;
    answer?: string;
    /** The run's clock: a test shares the emulator's. @default suiteClock (suite-clock.ts) */
    clock?: Clock;
  } = {},
): CliIO & { out(): string; err(): string } {
  let out = "";
  let err = "";
  const tty = options.tty ?? false;
  return {
    stdout: {
      write: (text) => {
        out += text;
      },
      isTTY: tty,
    },
    stderr: {
      write: (text) => {
        err += text;
      },
      isTTY: tty,
    },
    env: { NO_COLOR: "1", ...options.env },
    cwd: options.cwd ?? process.cwd(),
    clock: options.clock ?? suiteClock,
    ...(options.answer !== undefined ? { prompt: async () => options.answer ?? "" } : {}),
    out: () => out,
    err: () => err,
  };
}

type Interrupt = (signal: "SIGINT") => void;

/**
 * A bufferIO whose run can be interrupted as a terminal user would: `interrupt()` presses
 * Ctrl-C, and `pressWhen` presses it as soon as stderr shows a line it accepts (a request
 * line, "waiting for another apply").
 */
export function interruptibleIO(
  options: Parameters<typeof bufferIO>[0] & { pressWhen?: (stderr: string) => boolean } = {},
): { io: CliIO & { out(): string; err(): string }; interrupt: Interrupt } {
  const base = bufferIO(options);
  let listener: Interrupt | undefined;
  const interrupt: Interrupt = (signal) => listener?.(signal);
  const io = {
    ...base,
    stderr: {
      isTTY: base.stderr.isTTY,
      write: (text: string) => {
        base.stderr.write(text);
        if (options.pressWhen?.(text)) interrupt("SIGINT");
      },
    },
    onInterrupt: (on: Interrupt) => {
      listener = on;
      return () => {
        listener = undefined;
      };
    },
  };
  return { io, interrupt };
}
