import type { Command } from "commander";
import type { CliIO } from "./io.js";

/**
 * A command registers itself on the program and reports its exit code through `setExit`.
 * Each lives in its own module under `commands/`; program.ts lists them.
 */
export type CommandModule = (program: Command, io: CliIO, setExit: (code: number) => void) => void;
