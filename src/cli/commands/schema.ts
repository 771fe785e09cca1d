import type { CommandModule } from "../program.js";

/** `doohctl schema`: placeholder until its issue lands; it says so and exits 1. */
export const registerSchema: CommandModule = (program, io, setExit) => {
  program
    .command("schema")
    .description("(not implemented yet)")
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      io.stderr.write("doohctl schema: not implemented yet\n");
      setExit(1);
    });
};
