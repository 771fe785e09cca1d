import { resolve } from "node:path";
import { deactivatingChangeIds } from "../../plan/changes.js";
import { serializePlan } from "../../plan/file.js";
import { renderMarkdown } from "../../render/markdown.js";
import { renderText } from "../../render/text.js";
import type { CommandModule } from "../command.js";
import { reportError } from "../errors.js";
import { Flag } from "../flags.js";
import { EXIT, useColour } from "../io.js";
import { readPlanFile } from "../plan-file.js";

interface ShowFlags {
  format: "text" | "json" | "markdown";
}

/**
 * `doohctl show PLAN_FILE`: renders a saved plan with no credentials and no network, so a
 * pull-request comment shows exactly the plan file that apply --plan will be given.
 */
export const registerShow: CommandModule = (program, io, setExit) => {
  program
    .command("show")
    .description("render a plan saved with plan -o FILE (offline: needs no credentials, sends no request)")
    .argument("<plan-file>", "a plan file written by doohctl plan -o FILE")
    .addOption(Flag.format("output on stdout", ["text", "json", "markdown"]))
    .action((file: string, flags: ShowFlags) => {
      try {
        const plan = readPlanFile(resolve(io.cwd, file), file);
        if (flags.format === "json") io.stdout.write(serializePlan(plan));
        else if (flags.format === "markdown")
          io.stdout.write(renderMarkdown(plan, { deactivating: deactivatingChangeIds(plan.changes) }));
        else io.stdout.write(renderText(plan, { colour: useColour(io) }));
        setExit(EXIT.ok);
      } catch (error) {
        reportError(io, "show", error, flags.format);
        setExit(EXIT.error);
      }
    });
};
