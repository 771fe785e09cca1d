import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { printable } from "../../model/printable.js";
import type { CommandModule } from "../command.js";
import { CommandError, reportError, UsageError } from "../errors.js";
import { EXIT } from "../io.js";
import { PACKAGE_ROOT } from "../version.js";

/**
 * `doohctl examples [NAME]`: the path of the packaged examples, or of one, however doohctl was
 * installed (`npm root -g` knows only a global install). Offline.
 */
export const registerExamples: CommandModule = (program, io, setExit) => {
  program
    .command("examples")
    .argument("[name]", "one example: quickstart, multi-file, policy, github, gitlab, emulator-seed.json")
    .action((name: string | undefined) => {
      try {
        io.stdout.write(`${examplePath(name)}\n`);
        setExit(EXIT.ok);
      } catch (error) {
        reportError(io, "examples", error, undefined);
        setExit(EXIT.error);
      }
    });
};

function examplePath(name: string | undefined): string {
  const dir = PACKAGE_ROOT === undefined ? undefined : join(PACKAGE_ROOT, "examples");
  if (dir === undefined || !existsSync(dir)) {
    throw new CommandError(
      "INSTALL_INCOMPLETE",
      "the package's examples/ directory is missing: the installation is incomplete; reinstall doohctl",
    );
  }
  if (name === undefined) return dir;
  const names = readdirSync(dir).sort();
  if (!names.includes(name)) {
    throw new UsageError(`no example ${printable(name)}: name one of ${names.join(", ")} (in ${dir})`);
  }
  return join(dir, name);
}
