import type { CommandModule } from "../program.js";

/** `doohctl validate`: placeholder until its issue lands; it says so and exits 1. */
export const registerValidate: CommandModule = (program, io, setExit) => {
  program
    .command("validate")
    .description("(not implemented yet)")
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      io.stderr.write("doohctl validate: not implemented yet\n");
      setExit(1);
    });
};
