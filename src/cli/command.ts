import type { Command } from "commander";
import type { CliIO } from "./io.js";

/** A command module registers itself and reports its exit code through `setExit` (program.ts lists them). */
export type CommandModule = (program: Command, io: CliIO, setExit: (code: number) => void) => void;
