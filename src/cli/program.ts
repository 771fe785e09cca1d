import { Command, CommanderError } from "commander";
import type { CommandModule } from "./command.js";
import { renderJsonErrors, wantsJsonErrors } from "./errors.js";
import type { CliIO } from "./io.js";
import { atBoundary, EXIT } from "./io.js";
import { TOOL_VERSION } from "./version.js";

/**
 * Every command: its name, its `--help` line, and how to load its module. A run loads only the
 * module it names, so `--help` reads no YAML parser or HTTP client (docs/performance.md, Start-up).
 */
export interface CommandEntry {
  name: string;
  summary: string;
  load: () => Promise<CommandModule>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "validate",
    summary: "check config files offline: YAML, schema, and the rules the config alone decides",
    load: async () => (await import("./commands/validate.js")).registerValidate,
  },
  {
    name: "plan",
    summary: "read the live state and show, field by field, what apply would change and in which requests",
    load: async () => (await import("./commands/plan.js")).registerPlan,
  },
  {
    name: "apply",
    summary: "apply the changes of a plan to the DSP, in a safe order and as few write requests as possible",
    load: async () => (await import("./commands/apply.js")).registerApply,
  },
  {
    name: "export",
    summary: "write the live insertion orders, campaigns, targetings and creatives as config YAML",
    load: async () => (await import("./commands/export.js")).registerExport,
  },
  {
    name: "emulator",
    summary: "run the local DSP emulator (in memory; for demos, tests and rehearsals)",
    load: async () => (await import("./commands/emulator.js")).registerEmulator,
  },
  {
    name: "schema",
    summary: "print the JSON Schema of the config files (schemas/doohctl.schema.json)",
    load: async () => (await import("./commands/schema.js")).registerSchema,
  },
  {
    name: "doctor",
    summary:
      "read-only probe: does this DSP match the contract doohctl assumes (spec plus G1 to G16)? never writes",
    load: async () => (await import("./commands/doctor.js")).registerDoctor,
  },
  {
    name: "show",
    summary: "render a plan saved with plan -o FILE (offline: needs no credentials, sends no request)",
    load: async () => (await import("./commands/show.js")).registerShow,
  },
  {
    name: "status",
    summary:
      "read-only: delivery and pacing of the declared campaigns, creatives that cannot serve, campaigns an unfinished apply left paused",
    load: async () => (await import("./commands/status.js")).registerStatus,
  },
  {
    name: "accounts",
    summary: "list the accounts of a repository of several (offline), as a table, JSON or a CI matrix",
    load: async () => (await import("./commands/accounts.js")).registerAccounts,
  },
  {
    name: "examples",
    summary: "print where the examples shipped with doohctl are: their directory, or one example's path",
    load: async () => (await import("./commands/examples.js")).registerExamples,
  },
  {
    name: "pull",
    summary:
      "write drifted live values into the config files, in place, keeping their layout (never writes to the DSP)",
    load: async () => (await import("./commands/pull.js")).registerPull,
  },
];

/** The command a command line runs (`doohctl help plan` shows plan's help): its first name. */
function commandNamed(argv: readonly string[]): string | undefined {
  return argv.find((arg) => COMMANDS.some((entry) => entry.name === arg));
}

/** Runs doohctl with the given arguments; resolves to the process exit code. */
export async function run(argv: readonly string[], given: CliIO): Promise<number> {
  const io = atBoundary(given);
  let exitCode: number = EXIT.ok;
  // With --format json a usage error is a JSON document on stdout too, not commander's text.
  const json = wantsJsonErrors(argv);
  const program = new Command()
    .name("doohctl")
    .description("Campaigns as code for a digital-out-of-home DSP.")
    .version(TOOL_VERSION)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      ...(json ? { outputError: () => {} } : {}),
    })
    .showHelpAfterError(json ? false : "(run doohctl --help for usage)");
  const setExit = (code: number) => {
    exitCode = code;
  };
  const wanted = commandNamed(argv);
  try {
    for (const entry of COMMANDS) {
      // The others are listed by name for --help and never run: their modules stay unread.
      if (entry.name === wanted) (await entry.load())(program, io, setExit);
      else program.command(entry.name);
      program.commands.find((c) => c.name() === entry.name)?.description(entry.summary);
    }
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end with exit code 0; usage errors with 1.
      if (error.exitCode === 0) return EXIT.ok;
      if (json) {
        const message = `${error.message.replace(/^error: /, "")} (run doohctl --help for usage)`;
        io.stdout.write(renderJsonErrors([{ code: "USAGE", message, location: null }]));
      }
      return EXIT.error;
    }
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    if (json) {
      io.stdout.write(
        renderJsonErrors([{ code: "UNEXPECTED", message: `unexpected error: ${text}`, location: null }]),
      );
    } else io.stderr.write(`doohctl: unexpected error: ${text}\n`);
    return EXIT.error;
  }
  return exitCode;
}
