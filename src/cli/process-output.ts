/**
 * stdout and stderr as sinks (main.ts): output never stops a run (docs/safety.md#output-and-pipelines).
 * A reader that goes away (`| tee` killed by the same Ctrl-C, `| head`) or a full disk fails the
 * stream, and an unheard 'error' event ends the process: an apply stopped by Ctrl-C would exit
 * before it reactivates what it paused. So the first failure is kept, later writes dropped, and
 * the exit code stays the command's. Node ignores SIGPIPE, so a closed pipe is only an error.
 */
import { wrapToWidth } from "../render/wrap.js";
import type { TextSink } from "./io.js";

export interface ProcessSink extends TextSink {
  /** Why the stream stopped taking output (`EPIPE`, ...), once it did; nothing was written after. */
  failure(): string | undefined;
}

/** The writable side of process.stdout or process.stderr that a sink needs. */
export interface OutputStream {
  write(text: string): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  readonly isTTY?: boolean | undefined;
  readonly columns?: number | undefined;
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : error instanceof Error ? error.message : String(error);
}

/** @param wrap break lines at spaces to a terminal's width: prose only, data is never changed. */
export function processSink(stream: OutputStream, wrap = false): ProcessSink {
  let failed: string | undefined;
  const fail = (error: unknown) => {
    failed ??= describe(error);
  };
  // Also catches what other writers of the stream meet (the prompt writes to stderr itself).
  stream.on("error", fail);
  // Where the cursor stands on a terminal's current line: a write may end mid-line.
  let column = 0;
  const toWidth = (text: string): string => {
    const columns = stream.columns;
    if (!wrap || stream.isTTY !== true || columns === undefined || columns <= 0) return text;
    const wrapped = wrapToWidth(text, columns, column);
    column = wrapped.column;
    return wrapped.text;
  };
  return {
    write(text) {
      if (failed !== undefined) return;
      try {
        // On a terminal, lines break at spaces, not mid-word (src/render/wrap.ts).
        stream.write(toWidth(text));
      } catch (error) {
        // A synchronous write (a file, a terminal) may throw instead of emitting.
        fail(error);
      }
    },
    isTTY: stream.isTTY === true,
    // Read at every redraw: the terminal may be resized during an apply.
    get columns() {
      return stream.columns;
    },
    failure: () => failed,
  };
}

/** Commands whose stdout is data whatever the format (YAML, JSON, a path). */
const DATA_COMMANDS = new Set(["export", "pull", "schema", "examples"]);

/** Whether a run's stdout is prose, to wrap on a terminal: text format of a command writing text. */
export function stdoutIsProse(argv: readonly string[]): boolean {
  const command = argv.find((arg) => !arg.startsWith("-"));
  if (command !== undefined && DATA_COMMANDS.has(command)) return false;
  const at = argv.findIndex((arg) => arg === "--format" || arg.startsWith("--format="));
  if (at === -1) return true;
  const format = argv[at]?.startsWith("--format=") ? argv[at]?.slice("--format=".length) : argv[at + 1];
  return format === "text";
}

/** The line main.ts writes on stderr when stdout stopped taking output during the run. */
export function droppedOutputNote(failure: string): string {
  return `doohctl: stdout stopped taking output (${failure}); the rest of it was dropped and the run went on: the exit code is the command's own\n`;
}
