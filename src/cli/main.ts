#!/usr/bin/env node
import { systemClock } from "../model/clock.js";
import type { CliIO } from "./io.js";
import { droppedOutputNote, type ProcessSink, processSink, stdoutIsProse } from "./process-output.js";
import { run } from "./program.js";
import { askLine } from "./prompt.js";

function processIO(stdout: ProcessSink, stderr: ProcessSink): CliIO {
  return {
    stdout,
    stderr,
    env: process.env,
    cwd: process.cwd(),
    clock: systemClock,
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

// A reader that went away never ends the run (process-output.ts): the apply stops and restores
// as it would, and the exit code says what happened to it, not to its output.
// On a terminal, prose breaks at spaces to its width, never mid-word; data is left as written.
const stdout = processSink(process.stdout, stdoutIsProse(process.argv.slice(2)));
const stderr = processSink(process.stderr, true);
const code = await run(process.argv.slice(2), processIO(stdout, stderr));
// A stream reports a failed write on a later tick: let the last ones come in.
await new Promise((resolve) => setImmediate(resolve));
const dropped = stdout.failure();
if (dropped !== undefined) stderr.write(droppedOutputNote(dropped));
process.exitCode = code;
