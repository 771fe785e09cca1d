import { resolve } from "node:path";
import type { Command } from "commander";
import { printable } from "../../model/printable.js";
import { deactivatingChangeIds } from "../../plan/changes/changes.js";
import { hasErrors } from "../../plan/findings/findings.js";
import { serializePlan } from "../../plan/saved/file.js";
import type { Plan } from "../../plan/types.js";
import { renderMarkdown } from "../../render/markdown.js";
import { renderText } from "../../render/text.js";
import type { CommandModule } from "../command.js";
import { findingErrors, renderJsonErrors, reportError, UsageError } from "../errors.js";
import { addTuningOptions, Flag, formatOf, pipelineOptionsOf, type ReadFlags } from "../flags.js";
import { interruptible } from "../interruptible.js";
import { type CliIO, EXIT, useColour } from "../io.js";
import { checkOutputDirectory } from "../output-dir.js";
import { loadAndPlan } from "../pipeline.js";
import { writePlanFile } from "../plan-file.js";

interface PlanFlags extends ReadFlags {
  out?: string;
  format: string;
  detailedExitcode?: boolean;
}

const FORMATS = ["text", "json", "markdown"] as const;

/** `doohctl plan` (ARCHITECTURE.md#commands): reads live state, prints the plan, `-o` saves it. */
export const registerPlan: CommandModule = (program: Command, io, setExit) => {
  const command = program.command("plan");
  addTuningOptions(command)
    .argument("[paths...]", "config files or directories (default: doohctl.yaml)")
    .option("-o, --out <file>", "also save the plan as JSON, for apply --plan FILE")
    .addOption(Flag.format("output on stdout", FORMATS, { checkedBy: "command" }))
    .option("--detailed-exitcode", "exit 0 when there are no changes, 2 when there are (1 on error)")
    .addOption(Flag.target("an insertion order, campaign or creative id"))
    .addOption(Flag.changedSince(" (e.g. origin/main)"))
    .addOption(Flag.ca())
    .addOption(Flag.sessionCache())
    .action(async (paths: string[], flags: PlanFlags) => {
      setExit(
        await interruptible(io, { command: "plan", format: flags.format }, (gated) =>
          planCommand(gated, paths, flags),
        ),
      );
    });
};

function render(plan: Plan, format: (typeof FORMATS)[number], io: CliIO): string {
  if (format === "json") return serializePlan(plan);
  if (format === "markdown")
    return renderMarkdown(plan, { deactivating: deactivatingChangeIds(plan.changes) });
  return renderText(plan, { colour: useColour(io) });
}

async function planCommand(io: CliIO, paths: string[], flags: PlanFlags): Promise<number> {
  const format = formatOf(flags.format, FORMATS);
  if (format instanceof UsageError) {
    reportError(io, "plan", format, flags.format);
    return EXIT.error;
  }
  try {
    // Before any request: a plan read for nothing is slow and counts against the read window.
    if (flags.out !== undefined) checkOutputDirectory(io.cwd, flags.out, "PLAN_OUTPUT_DIR");
    const run = await loadAndPlan(io, pipelineOptionsOf(flags, paths));
    await run.client.close();
    const { plan } = run;
    if (hasErrors(plan.findings)) {
      if (format === "json") {
        io.stdout.write(renderJsonErrors(findingErrors(plan.findings)));
        return EXIT.error;
      }
      // The plan, findings included, is the answer on stdout; the errors that make it
      // unappliable are on stderr, where a CI log or a redirected stdout keeps them apart.
      // When both are the one terminal, the Findings above already show them: once is enough.
      io.stdout.write(render(plan, format, io));
      const sameScreen = io.stdout.isTTY && io.stderr.isTTY && format === "text";
      for (const f of sameScreen ? [] : plan.findings.filter((f) => f.severity === "error")) {
        const at = f.source ? ` (${f.source.file}:${f.source.line}:${f.source.column})` : "";
        io.stderr.write(`doohctl plan: error ${f.code}: ${printable(f.message)}${at}\n`);
      }
      const unsaved = flags.out === undefined ? "" : `, and it is not saved to ${flags.out}`;
      io.stderr.write(`doohctl plan: the plan has errors: nothing can be applied${unsaved}\n`);
      return EXIT.error;
    }
    // Streamed, then renamed into place (docs/plan.md#saved-plans): 100,000 campaigns make 274 MiB.
    if (flags.out !== undefined) await writePlanFile(resolve(io.cwd, flags.out), plan, { shown: flags.out });
    io.stdout.write(render(plan, format, io));
    if (flags.out !== undefined) io.stderr.write(`doohctl plan: saved to ${flags.out}\n`);
    // A campaign a running apply keeps paused (DOOH203) is not "no changes" (docs/apply.md).
    const changes = plan.changes.length > 0 || plan.findings.some((f) => f.code === "DOOH203");
    return flags.detailedExitcode && changes ? EXIT.changes : EXIT.ok;
  } catch (error) {
    reportError(io, "plan", error, format);
    return EXIT.error;
  }
}
