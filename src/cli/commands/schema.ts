import { readConfigSchemaText } from "../../config/schema-file.js";
import type { CommandModule } from "../command.js";
import { Flag } from "../flags.js";
import { EXIT } from "../io.js";

/** `doohctl schema`: prints the config JSON Schema exactly as shipped, for editors and tools. */
export const registerSchema: CommandModule = (program, io, setExit) => {
  program
    .command("schema")
    // The schema is JSON already; --format json is accepted like on every other command.
    .addOption(Flag.format("output format", ["json"]))
    .action(() => {
      io.stdout.write(readConfigSchemaText());
      setExit(EXIT.ok);
    });
};
