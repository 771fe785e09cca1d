import type { CommandModule } from "../program.js";

/** `doohctl plan`: placeholder until its issue lands; it says so and exits 1. */
export const registerPlan: CommandModule = (program, io, setExit) => {
  program
    .command("plan")
    .description("(not implemented yet)")
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      io.stderr.write("doohctl plan: not implemented yet\n");
      setExit(1);
    });
};
