import type { Command } from "commander";
import { checkedStateDir, stoppedPausesOnDisk } from "../../apply/recovery.js";
import { count } from "../../model/plural.js";
import { printable } from "../../model/printable.js";
import type { RecordSettled } from "../../model/recovery.js";
import { hasErrors } from "../../plan/findings/findings.js";
import { checkProposal } from "../../plan/saved/proposal.js";
import { renderApplyJson } from "../../render/apply-result.js";
import { renderApplyReport } from "../../render/report.js";
import { renderRestoreJson, renderRestoreText, restoreIncomplete } from "../../render/restore.js";
import { renderText } from "../../render/text.js";
import type { CommandModule } from "../command.js";
import { findingErrors, renderJsonErrors, reportError, UsageError } from "../errors.js";
import {
  addTuningOptions,
  Flag,
  formatOf,
  pipelineOptionsOf,
  type ReadFlags,
  thresholdsOf,
} from "../flags.js";
import { type CliIO, EXIT, type InterruptSignal, PromptInterrupted, useColour } from "../io.js";
import { loadAndPlan } from "../pipeline.js";
import {
  ApplyRefused,
  type PreparedApply,
  settleRecorded,
  shortList,
  waitForHolders,
} from "./apply-prepared.js";
import { settleBeforeRefusal, settleFromConfig, settleRecord } from "./apply-restore.js";
import { InterruptedBeforeSending, runApply } from "./apply-run.js";
import { prepareSavedPlan, savedPlanConfig } from "./apply-saved.js";

interface ApplyFlags extends ReadFlags {
  plan?: string;
  restoreOnly?: boolean;
  autoApprove?: boolean;
  format: string;
  log?: string;
}

const FORMATS = ["text", "json"] as const;

const QUESTION = "Apply these changes? Only 'yes' is accepted: ";

/** `doohctl apply`: plan (or load a saved plan), ask, execute, report (ARCHITECTURE.md#commands). */
export const registerApply: CommandModule = (program: Command, io, setExit) => {
  const command = program.command("apply");
  addTuningOptions(command)
    .argument("[paths...]", "config files or directories (default: doohctl.yaml)")
    .option(
      "--plan <file>",
      "apply a plan saved with `doohctl plan -o FILE`: made again from its config files (PATHS, default the files it names) and the live state, and refused when anything differs",
    )
    .option("--auto-approve", "apply without asking (needed without a terminal)")
    .option(
      "--restore-only",
      "only reactivate the campaigns the recovery record holds paused by an apply that stopped, unless PATHS' config declares them inactive; send nothing else (exit 1 if any stays paused)",
    )
    .addOption(Flag.format("result format on stdout", FORMATS, { checkedBy: "command" }))
    .addOption(Flag.target("an insertion order, campaign or creative id"))
    .addOption(Flag.changedSince())
    .option("--log <file>", "append a JSON Lines journal of every request to FILE")
    .addOption(Flag.ca())
    .addOption(Flag.sessionCache())
    .action(async (paths: string[], flags: ApplyFlags) => {
      setExit(await applyCommand(io, paths, flags));
    });
};

/** Flags that do not go together, or an approval no one can give: refused before anything is read. */
function refuseUnusableFlags(io: CliIO, flags: ApplyFlags): void {
  const format = formatOf(flags.format, FORMATS);
  if (format instanceof UsageError) throw format;
  if (
    flags.restoreOnly &&
    (flags.plan !== undefined || flags.target.length > 0 || flags.changedSince !== undefined)
  ) {
    throw new ApplyRefused(
      "--restore-only reactivates what the recovery record holds paused, whatever the scope: drop --plan, --target and --changed-since",
    );
  }
  // Restoring asks nothing: it sends only what every plan of the account shows as DOOH202.
  if (flags.restoreOnly) return;
  if (flags.plan !== undefined && (flags.target.length > 0 || flags.changedSince !== undefined)) {
    throw new ApplyRefused(
      "--plan applies the saved plan with its own scope: drop --target and --changed-since",
    );
  }
  if (flags.plan !== undefined && flags.maxPause !== undefined) {
    throw new ApplyRefused("--plan applies the saved plan with its own --max-pause: drop --max-pause");
  }
  if (flags.plan !== undefined && (flags.allow ?? []).length > 0) {
    throw new ApplyRefused(
      "--plan applies the saved plan with the --allow codes it records: drop --allow (or make a new plan with plan --allow CODE -o FILE)",
    );
  }
  if (flags.plan !== undefined && thresholdsOf(flags) !== undefined) {
    throw new ApplyRefused(
      "--plan applies the saved plan with the threshold flags it records: drop --budget-increase-threshold, --cpm-increase-threshold and --min-budget-days (or make a new plan with them)",
    );
  }
  // Never wait on stdin in CI: refuse before reading anything (ARCHITECTURE.md#commands).
  if (!flags.autoApprove && io.prompt === undefined) {
    throw new ApplyRefused(
      "no terminal to ask for approval: review the plan, then run with --auto-approve " +
        "(or save it with plan -o FILE and apply --plan FILE --auto-approve)",
    );
  }
}

async function applyCommand(io: CliIO, paths: string[], flags: ApplyFlags): Promise<number> {
  let prepared: PreparedApply | undefined;
  // Set once the flags are usable: how this run settles the record before it refuses.
  let settle: (() => Promise<RecordSettled>) | undefined;
  try {
    refuseUnusableFlags(io, flags);
    if (flags.restoreOnly) return await restoreOnly(io, paths, flags);
    settle = () =>
      prepared !== undefined ? settleRecord(io, prepared) : settleWithoutPlan(io, paths, flags);
    // With --format json stdout carries only the result document.
    const planSink = flags.format === "json" ? io.stderr : io.stdout;
    prepared = await preparePlan(io, paths, flags);
    // Campaigns a running apply paused are its own to reactivate: wait for it, then plan again.
    while (await waitForRunningApply(io, prepared)) {
      await prepared.client.close();
      prepared = undefined;
      prepared = await preparePlan(io, paths, flags);
    }
    const { plan } = prepared;
    if (hasErrors(plan.findings)) {
      if (flags.format === "json") io.stdout.write(renderJsonErrors(findingErrors(plan.findings)));
      io.stderr.write(renderText(plan, { colour: useColour(io, io.stderr) }));
      const reactivated = await settleBeforeRefusal(io, settle);
      io.stderr.write(
        `doohctl apply: the plan has errors: nothing ${reactivated > 0 ? "of the plan " : ""}was sent\n`,
      );
      return EXIT.error;
    }
    if (plan.requests.length === 0) {
      const held = plan.findings.some((f) => f.code === "DOOH203");
      // A campaign paused by a running apply is not "no changes" (docs/apply.md).
      planSink.write(
        held ? "Nothing to send now; campaigns are paused by a running apply (below).\n" : "No changes.\n",
      );
      // Nothing to send is not all well: a campaign may still be paused by a running apply (DOOH203).
      for (const f of plan.findings)
        io.stderr.write(`doohctl apply: ${f.severity} ${f.code}: ${printable(f.message)}\n`);
      settleRecorded(io, prepared);
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
    const approved = prepared;
    const { result, signal } = await runApply(io, prepared, {
      log: flags.log,
      rejudge: () => rejudge(approved, () => preparePlan(io, paths, flags)),
    });
    if (result.status === "applied") settleRecorded(io, prepared);
    io.stdout.write(flags.format === "json" ? renderApplyJson(result) : renderApplyReport(result));
    if (result.status === "failed")
      io.stderr.write(
        `doohctl apply: request ${result.failure?.request.seq} failed: ${printable(result.failure?.message ?? "")}\n`,
      );
    if (result.status === "interrupted")
      io.stderr.write(`doohctl apply: interrupted (${signal ?? "signal"})\n`);
    if (result.journal_error !== undefined)
      io.stderr.write(`doohctl apply: the --log journal is incomplete: ${result.journal_error}\n`);
    // The code says what happened to the apply: a signal's own code, never a log's failure
    // (the incomplete journal is said above and in the result's journal_error; docs/apply.md).
    if (result.status === "interrupted" && signal !== undefined) return EXIT[signal];
    return result.status === "applied" ? EXIT.ok : EXIT.error;
  } catch (error) {
    if (error instanceof PromptInterrupted) {
      io.stderr.write("Apply cancelled at the prompt: nothing was sent.\n");
      return EXIT.SIGINT;
    }
    if (error instanceof InterruptedBeforeSending) {
      io.stderr.write(`doohctl apply: ${error.message}
`);
      return EXIT[error.signal];
    }
    if (error instanceof ApplyRefused && !error.beforeLogin && settle !== undefined)
      await settleBeforeRefusal(io, settle);
    else sayUnsettled(io);
    reportError(io, "apply", error, flags.format);
    return EXIT.error;
  } finally {
    await prepared?.client.close();
  }
}

/** Waits for the running applies that hold the plan's campaigns; Ctrl-C ends the wait, nothing sent. */
async function waitForRunningApply(io: CliIO, prepared: PreparedApply): Promise<boolean> {
  const controller = new AbortController();
  let received: InterruptSignal | undefined;
  const off = io.onInterrupt?.((signal) => {
    received = signal;
    controller.abort(new Error("interrupted"));
  });
  try {
    return await waitForHolders(io, prepared, { clock: io.clock, signal: controller.signal });
  } catch (error) {
    if (received !== undefined) throw new InterruptedBeforeSending(received);
    throw error;
  } finally {
    off?.();
  }
}

/** The plan to apply, and the client that read (or re-read) its objects. */
async function preparePlan(io: CliIO, paths: string[], flags: ApplyFlags): Promise<PreparedApply> {
  if (flags.plan === undefined) {
    const run = await loadAndPlan(io, pipelineOptionsOf(flags, paths.length > 0 ? paths : ["doohctl.yaml"]));
    return {
      plan: run.plan,
      desired: run.desired,
      client: run.client,
      recovery: run.recovery,
      recorded: run.recorded,
      connection: run.connection,
    };
  }
  return prepareSavedPlan(io, flags.plan, paths, pipelineOptionsOf(flags, paths));
}

/** A refusal that cannot settle the record: say what a stopped apply left paused, and how to restore it. */
function sayUnsettled(io: CliIO): void {
  let paused: number;
  try {
    paused = stoppedPausesOnDisk(checkedStateDir(io.env), io.clock.now());
  } catch {
    return; // an unusable state directory is refused by the run that needs it
  }
  if (paused === 0) return;
  io.stderr.write(
    `Recovery record: not settled: ${count(paused, "campaign")} an apply that stopped left paused may still be paused; once the error below is fixed, run doohctl apply --restore-only\n`,
  );
}

/** `--restore-only`: settle the record with PATHS' config, report, exit 1 if anything stays dark. */
async function restoreOnly(io: CliIO, paths: string[], flags: ApplyFlags): Promise<number> {
  const settled = await settleFromConfig(io, {
    paths: paths.length > 0 ? paths : ["doohctl.yaml"],
    sessionCache: flags.sessionCache,
    caFile: flags.ca,
  });
  io.stdout.write(flags.format === "json" ? renderRestoreJson(settled) : renderRestoreText(settled));
  return restoreIncomplete(settled) ? EXIT.error : EXIT.ok;
}

/** A refusal before a plan: settle with the config named, else the saved plan's, else the default. */
async function settleWithoutPlan(io: CliIO, paths: string[], flags: ApplyFlags): Promise<RecordSettled> {
  const from = { sessionCache: flags.sessionCache, caFile: flags.ca, quiet: true };
  if (paths.length > 0 || flags.plan === undefined) {
    return settleFromConfig(io, { ...from, paths: paths.length > 0 ? paths : ["doohctl.yaml"] });
  }
  return settleFromConfig(io, { ...from, ...(await savedPlanConfig(io, flags.plan)) });
}

/**
 * After waiting for another apply: the plan made again must have the approved one's requests
 * and fingerprints, or nothing is sent (the other may have reactivated a campaign this plan
 * retargets without a pause, or created what it creates).
 */
async function rejudge(approved: PreparedApply, prepare: () => Promise<PreparedApply>): Promise<void> {
  const again = await prepare();
  try {
    const check = checkProposal(approved.plan, again.plan);
    const moved = [...check.stale, ...check.altered];
    if (moved.length === 0) return;
    throw new ApplyRefused(
      `plan is stale: another apply of this account ran while this one waited for it, so nothing was applied:\n${shortList(moved)}\nMake a new plan.`,
    );
  } finally {
    await again.client.close();
  }
}
