import { Command, CommanderError } from "commander";
import type { CommandModule } from "./command.js";
import { registerApply } from "./commands/apply.js";
import { registerDoctor } from "./commands/doctor.js";
import { registerEmulator } from "./commands/emulator.js";
import { registerExport } from "./commands/export.js";
import { registerPlan } from "./commands/plan.js";
import { registerPull } from "./commands/pull.js";
import { registerSchema } from "./commands/schema.js";
import { registerShow } from "./commands/show.js";
import { registerStatus } from "./commands/status.js";
import { registerValidate } from "./commands/validate.js";
import { renderJsonErrors, wantsJsonErrors } from "./errors.js";
import type { CliIO } from "./io.js";
import { EXIT } from "./io.js";
import { TOOL_VERSION } from "./version.js";

const COMMANDS: CommandModule[] = [
  registerValidate,
  registerPlan,
  registerApply,
  registerExport,
  registerEmulator,
  registerSchema,
  registerDoctor,
  registerShow,
  registerStatus,
  registerPull,
];

/** Runs doohctl with the given arguments; resolves to the process exit code. */
export async function run(argv: readonly string[], io: CliIO): Promise<number> {
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
  for (const register of COMMANDS) {
    register(program, io, (code) => {
      exitCode = code;
    });
  }
  try {
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
