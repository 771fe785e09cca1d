#!/usr/bin/env node
import { createInterface } from "node:readline/promises";
import type { CliIO } from "./io.js";
import { run } from "./program.js";

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
      ? {
          prompt: async (question: string) => {
            const rl = createInterface({ input: process.stdin, output: process.stderr });
            try {
              return await rl.question(question);
            } finally {
              rl.close();
            }
          },
        }
      : {}),
    onInterrupt: (listener) => {
      process.on("SIGINT", listener);
      process.on("SIGTERM", listener);
      return () => {
        process.off("SIGINT", listener);
        process.off("SIGTERM", listener);
      };
    },
  };
}

process.exitCode = await run(process.argv.slice(2), processIO());
