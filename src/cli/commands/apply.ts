import { resolve } from "node:path";
import type { Command } from "commander";
import type { DspClient } from "../../api/types.js";
import { applyPlan } from "../../apply/execute.js";
import { type ApplyJournal, openFileJournal } from "../../apply/journal.js";
import type { ApplyResult } from "../../model/apply-report.js";
import { systemClock } from "../../model/clock.js";
import { PUBLISHED_RATE_LIMITS, RateLimit, type RateLimits, type RateWindow } from "../../model/limits.js";
import { readPlanFile } from "../../plan/file.js";
import { hasErrors } from "../../plan/findings.js";
import { checkStaleness } from "../../plan/stale.js";
import type { Plan } from "../../plan/types.js";
import { renderApplyReport } from "../../render/report.js";
import { renderText } from "../../render/text.js";
import { connect } from "../connection.js";
import { findingErrors, renderJsonErrors, reportError } from "../errors.js";
import { addTuningOptions, maxWaitMsOf, type TuningFlags, thresholdsOf } from "../flags.js";
import { type CliIO, EXIT, useColour } from "../io.js";
import { loadAndPlan } from "../pipeline.js";
import type { CommandModule } from "../program.js";
import { createProgressDisplay } from "../progress.js";

interface ApplyFlags extends TuningFlags {
  plan?: string;
  autoApprove?: boolean;
  format: string;
  target: string[];
  log?: string;
  sessionCache: boolean;
  ca?: string;
}

const QUESTION = "Apply these changes? Only 'yes' is accepted: ";

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** A usage or precondition problem: said on stderr, exit 1, nothing sent. */
class ApplyRefused extends Error {
  override readonly name = "ApplyRefused";
  readonly code = "APPLY_REFUSED";
}

/** `doohctl apply`: plan (or load a saved plan), ask, execute, report (design.md, Commands). */
export const registerApply: CommandModule = (program: Command, io, setExit) => {
  const command = program.command("apply");
  addTuningOptions(command)
    .description(
      "apply the changes of a plan to the DSP, in a safe order and as few write requests as possible",
    )
    .argument("[paths...]", "config files or directories (default: doohctl.yaml)")
    .option("--plan <file>", "apply a plan saved with `doohctl plan -o FILE` (refused when stale)")
    .option("--auto-approve", "apply without asking (needed without a terminal)")
    .option("--format <format>", "result format on stdout: text or json", "text")
    .option("--target <id>", "narrow the plan to an insertion order or campaign id (repeatable)", collect, [])
    .option("--log <file>", "append a JSON Lines journal of every request to FILE")
    .option(
      "--ca <file>",
      "trust this PEM CA certificate in addition to Node's bundled roots (a DSP behind a private CA)",
    )
    .option("--no-session-cache", "log in afresh and do not store the session")
    .action(async (paths: string[], flags: ApplyFlags) => {
      setExit(await applyCommand(io, paths, flags));
    });
};

async function applyCommand(io: CliIO, paths: string[], flags: ApplyFlags): Promise<number> {
  let client: DspClient | undefined;
  try {
    if (flags.format !== "text" && flags.format !== "json") {
      throw new ApplyRefused(`--format ${flags.format} is not known: use text or json`);
    }
    if (flags.plan !== undefined && (paths.length > 0 || flags.target.length > 0)) {
      throw new ApplyRefused("--plan applies the saved plan as it is: drop PATHS and --target");
    }
    // Never wait on stdin in CI: refuse before reading anything (design.md, Commands).
    if (!flags.autoApprove && io.prompt === undefined) {
      throw new ApplyRefused(
        "no terminal to ask for approval: review the plan, then run with --auto-approve " +
          "(or save it with plan -o FILE and apply --plan FILE --auto-approve)",
      );
    }
    // With --format json stdout carries only the result document.
    const planSink = flags.format === "json" ? io.stderr : io.stdout;
    const prepared = await preparePlan(io, paths, flags);
    client = prepared.client;
    const plan = prepared.plan;
    if (hasErrors(plan.findings)) {
      if (flags.format === "json") io.stdout.write(renderJsonErrors(findingErrors(plan.findings)));
      io.stderr.write(renderText(plan, { colour: useColour(io, io.stderr) }));
      io.stderr.write("doohctl apply: the plan has errors: nothing was sent\n");
      return EXIT.error;
    }
    if (plan.requests.length === 0) {
      planSink.write("No changes.\n");
      return EXIT.ok;
    }
    if (flags.plan === undefined || !flags.autoApprove) {
      planSink.write(renderText(plan, { colour: useColour(io, planSink) }));
    }
    if (!flags.autoApprove) {
      const answer = await io.prompt!(QUESTION);
      if (answer.trim() !== "yes") {
        io.stderr.write("Apply cancelled: nothing was sent.\n");
        return EXIT.error;
      }
    }
    const result = await execute(io, plan, client, flags);
    io.stdout.write(
      flags.format === "json" ? `${JSON.stringify(result, null, 2)}\n` : renderApplyReport(result),
    );
    if (result.status === "failed")
      io.stderr.write(
        `doohctl apply: request ${result.failure?.request.seq} failed: ${result.failure?.message}\n`,
      );
    if (result.status === "interrupted") io.stderr.write("doohctl apply: interrupted\n");
    if (result.journal_error !== undefined) {
      // The changes went through, but the audit record the user asked for is incomplete.
      io.stderr.write(`doohctl apply: the --log journal is incomplete: ${result.journal_error}\n`);
      return EXIT.error;
    }
    return result.status === "applied" ? EXIT.ok : EXIT.error;
  } catch (error) {
    reportError(io, "apply", error, flags.format);
    return EXIT.error;
  } finally {
    await client?.close();
  }
}

/** A saved plan's write window, for the ETA; the published one if the plan names none usable. */
/** The windows the plan was made for; plans from before they were recorded give the write window only. */
function rateLimitsOf(plan: Plan): RateLimits {
  if (plan.connection.rate_limits !== undefined) {
    try {
      return RateLimit.parseList(plan.connection.rate_limits);
    } catch {
      // fall through to the write window of the summary
    }
  }
  return { ...PUBLISHED_RATE_LIMITS, write: writeWindowOf(plan) };
}

function writeWindowOf(plan: Plan): RateWindow {
  try {
    return RateLimit.parseWindow(plan.summary.write_window);
  } catch {
    return PUBLISHED_RATE_LIMITS.write;
  }
}

/** The plan to apply, and the client that read (or re-read) its objects. */
async function preparePlan(
  io: CliIO,
  paths: string[],
  flags: ApplyFlags,
): Promise<{ plan: Plan; client: DspClient }> {
  if (flags.plan === undefined) {
    const run = await loadAndPlan(io, {
      paths: paths.length > 0 ? paths : ["doohctl.yaml"],
      targets: flags.target,
      sessionCache: flags.sessionCache,
      caFile: flags.ca,
      thresholds: thresholdsOf(flags),
      maxWaitMs: maxWaitMsOf(flags),
    });
    return { plan: run.plan, client: run.client };
  }
  // Relative to the command's working directory, like every other path argument.
  const plan = readPlanFile(resolve(io.cwd, flags.plan));
  const { client, connection } = connect(
    io,
    {
      apiOrigin: plan.connection.api_origin,
      environment: plan.connection.environment,
      rateLimits: rateLimitsOf(plan),
    },
    {
      sessionCache: flags.sessionCache,
      caFile: flags.ca,
      ...(flags.maxWait !== undefined ? { client: { retry: { maxWaitMs: maxWaitMsOf(flags)! } } } : {}),
    },
  );
  try {
    // A plan made against one DSP must never be applied to another (env overrides included).
    if (
      connection.apiOrigin !== plan.connection.api_origin ||
      connection.environment !== plan.connection.environment
    ) {
      throw new ApplyRefused(
        `${flags.plan} was made for ${plan.connection.api_origin} (${plan.connection.environment}), not for ` +
          `${connection.apiOrigin} (${connection.environment}): unset DOOHCTL_API_ORIGIN/DOOHCTL_ENVIRONMENT or make a new plan`,
      );
    }
    const stale = await checkStaleness(plan, client);
    if (stale.length > 0) {
      throw new ApplyRefused(
        `plan is stale, nothing was applied:\n${stale.map((s) => `  ${s.message}`).join("\n")}\nMake a new plan.`,
      );
    }
    return { plan, client };
  } catch (error) {
    await client.close();
    throw error;
  }
}

async function execute(io: CliIO, plan: Plan, client: DspClient, flags: ApplyFlags): Promise<ApplyResult> {
  const controller = new AbortController();
  const offInterrupt = io.onInterrupt?.(() => controller.abort(new Error("interrupted")));
  const journal: ApplyJournal | undefined =
    flags.log !== undefined ? openFileJournal(resolve(io.cwd, flags.log)) : undefined;
  const display = createProgressDisplay({
    sink: io.stderr,
    clock: systemClock,
    writeWindow: writeWindowOf(plan),
  });
  try {
    return await applyPlan({
      plan,
      client,
      signal: controller.signal,
      onEvent: (event) => display.onEvent(event),
      ...(journal ? { journal } : {}),
    });
  } finally {
    display.stop();
    offInterrupt?.();
    try {
      journal?.close();
    } catch (error) {
      // Closing never loses the report: every line was written synchronously before this.
      io.stderr.write(
        `doohctl apply: warning: closing the --log journal failed: ${(error as Error).message}\n`,
      );
    }
  }
}
