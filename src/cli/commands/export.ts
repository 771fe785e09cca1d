import type { CommandModule } from "../program.js";

/** `doohctl export`: placeholder until its issue lands; it says so and exits 1. */
export const registerExport: CommandModule = (program, io, setExit) => {
  program
    .command("export")
    .description("(not implemented yet)")
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      io.stderr.write("doohctl export: not implemented yet\n");
      setExit(1);
    });
};
