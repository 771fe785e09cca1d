#!/usr/bin/env node
import type { CliIO, InterruptSignal } from "./io.js";
import { run } from "./program.js";
import { askLine } from "./prompt.js";

const EXIT_ON_SIGNAL: Record<InterruptSignal, number> = { SIGINT: 130, SIGTERM: 143 };

function processIO(): CliIO {
  return {
    stdout: { write: (text) => process.stdout.write(text), isTTY: process.stdout.isTTY === true },
    stderr: {
      write: (text) => process.stderr.write(text),
      isTTY: process.stderr.isTTY === true,
      // Read at every redraw: the terminal may be resized during an apply.
      get columns() {
        return process.stderr.columns;
      },
    },
    env: process.env,
    cwd: process.cwd(),
    ...(process.stdin.isTTY
      ? { prompt: (question: string) => askLine(process.stdin, process.stderr, question) }
      : {}),
    onInterrupt: (listener) => {
      let signalled = false;
      const on = (signal: InterruptSignal) => () => {
        if (signalled) {
          // The second signal: stop now. Whatever is still paused is in the recovery record.
          process.stderr.write(
            `\ndoohctl: ${signal} again: exiting at once; campaigns still paused are in the recovery record and the next plan reactivates them\n`,
          );
          process.exit(EXIT_ON_SIGNAL[signal]);
        }
        signalled = true;
        listener(signal);
      };
      const onInt = on("SIGINT");
      const onTerm = on("SIGTERM");
      process.on("SIGINT", onInt);
      process.on("SIGTERM", onTerm);
      return () => {
        process.off("SIGINT", onInt);
        process.off("SIGTERM", onTerm);
      };
    },
  };
}

process.exitCode = await run(process.argv.slice(2), processIO());
