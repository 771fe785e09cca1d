import type { CommandModule } from "../program.js";

/** `doohctl apply`: placeholder until its issue lands; it says so and exits 1. */
export const registerApply: CommandModule = (program, io, setExit) => {
  program
    .command("apply")
    .description("(not implemented yet)")
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      io.stderr.write("doohctl apply: not implemented yet\n");
      setExit(1);
    });
};
