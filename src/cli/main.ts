#!/usr/bin/env node
import type { CliIO } from "./io.js";
import { run } from "./program.js";
import { askLine } from "./prompt.js";

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
      // Every signal goes to the command: apply decides what a second one does (apply-run.ts).
      const onInt = () => listener("SIGINT");
      const onTerm = () => listener("SIGTERM");
      process.on("SIGINT", onInt);
      process.on("SIGTERM", onTerm);
      return () => {
        process.off("SIGINT", onInt);
        process.off("SIGTERM", onTerm);
      };
    },
    exitNow: (code) => process.exit(code),
  };
}

process.exitCode = await run(process.argv.slice(2), processIO());
