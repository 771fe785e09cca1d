import type { CommandModule } from "../program.js";

/** `doohctl emulator`: placeholder until its issue lands; it says so and exits 1. */
export const registerEmulator: CommandModule = (program, io, setExit) => {
  program
    .command("emulator")
    .description("(not implemented yet)")
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      io.stderr.write("doohctl emulator: not implemented yet\n");
      setExit(1);
    });
};
