/**
 * stdout and stderr as the sinks a command writes to (main.ts): output can never stop a run
 * (docs/safety.md#output-and-pipelines). A reader that goes away (`| tee` killed by the same
 * Ctrl-C, a closed terminal, `| head`), or a full disk under `> file`, makes the stream fail
 * with EPIPE, EIO or ENOSPC. Node reports that as an 'error' event, and one nobody listens to
 * ends the process with exit code 1: an apply stopped by Ctrl-C would then exit before it
 * reactivates what it paused. Here the first failure of each stream is kept, every later write
 * to it is dropped, and the run goes on; its exit code stays the command's own. SIGPIPE needs
 * nothing: Node ignores it from start-up, so a closed pipe is only ever an error.
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

/**
 * @param wrap break lines at spaces to a terminal's width (src/render/wrap.ts): for prose only;
 *   data (JSON, YAML, a diff) is never changed, a copy from the screen must read as written.
 */
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

/** Commands whose stdout is data whatever the format: `export` and `pull` YAML, `schema` JSON, `examples` a path. */
const DATA_COMMANDS = new Set(["export", "pull", "schema", "examples"]);

/**
 * Whether a run's stdout is prose, to wrap on a terminal: text format (the default) of a
 * command that writes text. stderr always is (errors, progress, notes); JSON errors go to stdout.
 */
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
