import { resolve } from "node:path";
import type { Command } from "commander";
import type { DspClient } from "../../api/types.js";
import { applyPlan } from "../../apply/execute.js";
import { type ApplyJournal, openFileJournal } from "../../apply/journal.js";
import { type ApplyLock, acquireApplyLock } from "../../apply/lock.js";
import { defaultStateDir, type RecoveryStore } from "../../apply/recovery.js";
import type { RecoveryPort } from "../../apply/restore.js";
import { resolveConnection } from "../../config/connection.js";
import { loadConfig } from "../../config/load.js";
import type { ApplyResult } from "../../model/apply-report.js";
import { systemClock } from "../../model/clock.js";
import { PUBLISHED_RATE_LIMITS, RateLimit, type RateWindow } from "../../model/limits.js";
import type { RecordedPause } from "../../model/recovery.js";
import { readPlanFile } from "../../plan/file.js";
import { hasErrors } from "../../plan/findings.js";
import { checkProposal } from "../../plan/proposal.js";
import type { Plan } from "../../plan/types.js";
import { renderApplyReport } from "../../render/report.js";
import { renderText } from "../../render/text.js";
import type { CommandModule } from "../command.js";
import { connect } from "../connection.js";
import { findingErrors, renderJsonErrors, reportError } from "../errors.js";
import { addTuningOptions, Flag, pipelineOptionsOf, type ReadFlags } from "../flags.js";
import { type CliIO, EXIT, type InterruptSignal, PromptInterrupted, useColour } from "../io.js";
import { loadAndPlan, type PipelineOptions, readAndPlan } from "../pipeline.js";
import { createProgressDisplay } from "../progress.js";

interface ApplyFlags extends ReadFlags {
  plan?: string;
  autoApprove?: boolean;
  format: string;
  log?: string;
}

const QUESTION = "Apply these changes? Only 'yes' is accepted: ";

/** A usage or precondition problem: said on stderr, exit 1, nothing sent. */
class ApplyRefused extends Error {
  override readonly name = "ApplyRefused";
  readonly code = "APPLY_REFUSED";
}

/** Stopped by a signal before any request was sent (while waiting for the apply lock). */
class InterruptedBeforeSending extends Error {
  override readonly name = "InterruptedBeforeSending";
  constructor(readonly signal: InterruptSignal) {
    super(`interrupted (${signal}) while waiting for another apply of this account: nothing was sent`);
  }
}

/** `doohctl apply`: plan (or load a saved plan), ask, execute, report (design.md, Commands). */
export const registerApply: CommandModule = (program: Command, io, setExit) => {
  const command = program.command("apply");
  addTuningOptions(command)
    .description(
      "apply the changes of a plan to the DSP, in a safe order and as few write requests as possible",
    )
    .argument("[paths...]", "config files or directories (default: doohctl.yaml)")
    .option(
      "--plan <file>",
      "apply a plan saved with `doohctl plan -o FILE`: made again from its config files (PATHS, default the files it names) and the live state, and refused when anything differs",
    )
    .option("--auto-approve", "apply without asking (needed without a terminal)")
    .option("--format <format>", "result format on stdout: text or json", "text")
    .addOption(Flag.target("an insertion order or campaign id"))
    .addOption(Flag.changedSince())
    .option("--log <file>", "append a JSON Lines journal of every request to FILE")
    .addOption(Flag.ca())
    .addOption(Flag.sessionCache())
    .action(async (paths: string[], flags: ApplyFlags) => {
      setExit(await applyCommand(io, paths, flags));
    });
};

async function applyCommand(io: CliIO, paths: string[], flags: ApplyFlags): Promise<number> {
  let prepared: Prepared | undefined;
  try {
    if (flags.format !== "text" && flags.format !== "json") {
      throw new ApplyRefused(`--format ${flags.format} is not known: use text or json`);
    }
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
    // Never wait on stdin in CI: refuse before reading anything (design.md, Commands).
    if (!flags.autoApprove && io.prompt === undefined) {
      throw new ApplyRefused(
        "no terminal to ask for approval: review the plan, then run with --auto-approve " +
          "(or save it with plan -o FILE and apply --plan FILE --auto-approve)",
      );
    }
    // With --format json stdout carries only the result document.
    const planSink = flags.format === "json" ? io.stderr : io.stdout;
    prepared = await preparePlan(io, paths, flags);
    const { plan } = prepared;
    if (hasErrors(plan.findings)) {
      if (flags.format === "json") io.stdout.write(renderJsonErrors(findingErrors(plan.findings)));
      io.stderr.write(renderText(plan, { colour: useColour(io, io.stderr) }));
      io.stderr.write("doohctl apply: the plan has errors: nothing was sent\n");
      return EXIT.error;
    }
    if (plan.requests.length === 0) {
      planSink.write("No changes.\n");
      // Nothing to send is not all well: a campaign may still be paused by a running apply (DOOH203).
      for (const f of plan.findings)
        io.stderr.write(`doohctl apply: ${f.severity} ${f.code}: ${f.message}\n`);
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
    const { result, signal } = await execute(io, prepared, flags);
    if (result.status === "applied") settleRecorded(io, prepared);
    io.stdout.write(
      flags.format === "json" ? `${JSON.stringify(result, null, 2)}\n` : renderApplyReport(result),
    );
    if (result.status === "failed")
      io.stderr.write(
        `doohctl apply: request ${result.failure?.request.seq} failed: ${result.failure?.message}\n`,
      );
    if (result.status === "interrupted")
      io.stderr.write(`doohctl apply: interrupted (${signal ?? "signal"})\n`);
    if (result.journal_error !== undefined) {
      // The changes went through, but the audit record the user asked for is incomplete.
      io.stderr.write(`doohctl apply: the --log journal is incomplete: ${result.journal_error}\n`);
      return EXIT.error;
    }
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
    reportError(io, "apply", error, flags.format);
    return EXIT.error;
  } finally {
    await prepared?.client.close();
  }
}

/** The windows the plan was made for; plans from before they were recorded give the write window only. */
function writeWindowOf(plan: Plan): RateWindow {
  if (plan.connection.rate_limits !== undefined) {
    try {
      return RateLimit.parseList(plan.connection.rate_limits).write;
    } catch {
      // fall through to the write window of the summary
    }
  }
  try {
    return RateLimit.parseWindow(plan.summary.write_window);
  } catch {
    return PUBLISHED_RATE_LIMITS.write;
  }
}

/**
 * Once live state matches the config, every entry the plan was made with is settled: those it
 * reactivated are gone already, and the rest are campaigns the config declares inactive (or an
 * insertion order with `unmanaged_campaigns: deactivate`). Dropping them keeps an old entry
 * from reactivating a campaign long after, when `active: false` is taken out of the config.
 * Entries of an apply still running are its own.
 */
function settleRecorded(io: CliIO, prepared: Prepared): void {
  const settled = prepared.recorded.filter((e) => !e.owner_running).map((e) => e.campaign_id);
  try {
    prepared.recovery.drop(settled);
  } catch (error) {
    io.stderr.write(
      `doohctl apply: warning: could not tidy the recovery record: ${(error as Error).message}\n`,
    );
  }
}

interface Prepared {
  plan: Plan;
  client: DspClient;
  recovery: RecoveryStore;
  /** The recovery record's entries the plan was made with. */
  recorded: readonly RecordedPause[];
  origin: string;
  environment: string;
}

/** The plan to apply, and the client that read (or re-read) its objects. */
async function preparePlan(io: CliIO, paths: string[], flags: ApplyFlags): Promise<Prepared> {
  if (flags.plan === undefined) {
    const run = await loadAndPlan(io, pipelineOptionsOf(flags, paths.length > 0 ? paths : ["doohctl.yaml"]));
    return {
      plan: run.plan,
      client: run.client,
      recovery: run.recovery,
      recorded: run.recorded,
      origin: run.connection.apiOrigin,
      environment: run.connection.environment,
    };
  }
  return prepareSavedPlan(io, paths, flags, pipelineOptionsOf(flags, paths));
}

/**
 * A saved plan is a proposal (design.md, Plan): the connection comes from the config and the
 * environment now, never from the file; the config must be the one the plan was made from
 * (same digests); the plan is made again from it and the live state, and applied only when
 * its requests are exactly the file's.
 */
async function prepareSavedPlan(
  io: CliIO,
  paths: string[],
  flags: ApplyFlags,
  options: PipelineOptions,
): Promise<Prepared> {
  const file = flags.plan!;
  // Relative to the command's working directory, like every other path argument.
  const saved = readPlanFile(resolve(io.cwd, file));
  const configPaths = paths.length > 0 ? paths : saved.config_files.map((f) => f.path);
  if (configPaths.length === 0) {
    throw new ApplyRefused(`${file} names no config file: make a new plan with doohctl plan -o ${file}`);
  }
  const desired = await loadConfig(configPaths, { cwd: io.cwd });
  const digests = new Map(saved.config_files.map((f) => [f.path, f.sha256]));
  const differing = desired.files.filter((f) => digests.get(f.path) !== f.sha256).map((f) => f.path);
  const missing = saved.config_files.filter((f) => !desired.files.some((d) => d.path === f.path));
  if (differing.length > 0 || missing.length > 0) {
    throw new ApplyRefused(
      `${file} was made from other config files than ${configPaths.join(", ")} are now (${[
        ...differing.map((p) => `${p} differs`),
        ...missing.map((f) => `${f.path} not read`),
      ].join(", ")}): nothing was sent. Apply from the commit the plan was made at, or make a new plan`,
    );
  }
  // Credentials go only where the config and the environment say now (design.md, Plan).
  const now = resolveConnection(desired.connection, io.env);
  const user = io.env.DOOHCTL_EMAIL ?? "";
  const made = saved.connection;
  // A team plans with a read-only user and applies with a write user of the same account
  // (spec, Authentication 1: one user, one account): DOOHCTL_PLAN_USER names the plan's user
  // the applier accepts. The plan is made again as this user anyway.
  const planUser = io.env.DOOHCTL_PLAN_USER;
  const userOk = made.user === user || (planUser !== undefined && planUser !== "" && made.user === planUser);
  if (made.api_origin !== now.apiOrigin || made.environment !== now.environment || !userOk) {
    const was = `${made.api_origin} (${made.environment}) as ${made.user ?? "an unrecorded user"}`;
    throw new ApplyRefused(
      `${file} was made for ${was}, not for ${now.apiOrigin} (${now.environment}) as ${user || "(DOOHCTL_EMAIL unset)"}: nothing was sent and no login was made. Make a new plan for this DSP and user (or, for a plan made by a read-only user of the same account, set DOOHCTL_PLAN_USER to that user)`,
    );
  }
  const { client, connection, pacing } = connect(io, desired.connection, {
    sessionCache: options.sessionCache,
    caFile: options.caFile,
    ...(options.maxWaitMs !== undefined ? { client: { retry: { maxWaitMs: options.maxWaitMs } } } : {}),
  });
  try {
    const run = await readAndPlan(io, {
      desired,
      client,
      connection,
      pacing,
      targets: saved.targets,
      ...(saved.scope ? { changed: saved.scope } : {}),
      ...(saved.max_pause_ms !== undefined ? { maxPauseMs: saved.max_pause_ms } : {}),
      // The saved plan's --allow codes: an allowed policy denial still applies as planned.
      ...(saved.allowed ? { allowed: saved.allowed } : {}),
      ...(options.thresholds ? { thresholds: options.thresholds } : {}),
    });
    // An apply that stopped since the file was made left campaigns paused: the plan made
    // now reactivates them (DOOH202), which the file cannot hold. Say that, not "altered".
    const reactivating = reactivatedCampaigns(saved);
    const since = run.recorded.filter(
      (e) => reactivatedCampaigns(run.plan).has(e.campaign_id) && !reactivating.has(e.campaign_id),
    );
    if (since.length > 0) {
      throw new ApplyRefused(
        `since ${file} was made, an apply that stopped left ${since
          .map((e) => `campaign ${e.campaign_id} "${e.name}"`)
          .join(
            ", ",
          )} paused (the recovery record), so nothing was applied. Make a new plan: it reactivates them`,
      );
    }
    const check = checkProposal(saved, run.plan);
    if (check.stale.length > 0) {
      throw new ApplyRefused(
        `plan is stale, nothing was applied:\n${check.stale.map((s) => `  ${s}`).join("\n")}\nMake a new plan.`,
      );
    }
    if (check.altered.length > 0) {
      throw new ApplyRefused(
        `${file} does not match the plan its config and the live state give, so nothing was applied (the file was altered, or made by another doohctl):\n${check.altered
          .slice(0, 20)
          .map((s) => `  ${s}`)
          .join(
            "\n",
          )}${check.altered.length > 20 ? `\n  and ${check.altered.length - 20} more` : ""}\nMake a new plan.`,
      );
    }
    return {
      plan: run.plan,
      client,
      recovery: run.recovery,
      recorded: run.recorded,
      origin: connection.apiOrigin,
      environment: connection.environment,
    };
  } catch (error) {
    await client.close();
    throw error;
  }
}

/** Campaigns a plan sets active (reactivations of the recovery record among them). */
function reactivatedCampaigns(plan: Plan): Set<string> {
  return new Set(
    plan.changes.flatMap((c) =>
      c.kind === "update_campaign" &&
      c.campaign.campaign_id !== undefined &&
      c.fields.some((f) => f.field === "active" && f.after === true)
        ? [c.campaign.campaign_id]
        : [],
    ),
  );
}

/**
 * The plan left campaigns to the apply that paused them and was running then (DOOH203). Had
 * it died while this one waited for the lock, this plan would leave them dark: refuse before
 * sending anything, so that the next run plans their reactivation.
 */
function refuseIfOwnerDied(prepared: Prepared): void {
  const leftToOwner = new Set(prepared.recorded.filter((e) => e.owner_running).map((e) => e.campaign_id));
  if (leftToOwner.size === 0) return;
  const orphaned = prepared.recovery.read().filter((e) => !e.owner_running && leftToOwner.has(e.campaign_id));
  if (orphaned.length === 0) return;
  throw new ApplyRefused(
    `apply ${orphaned[0]!.apply_id} stopped while this one waited, leaving ${orphaned
      .map((e) => `campaign ${e.campaign_id} "${e.name}"`)
      .join(
        ", ",
      )} paused, which this plan left to it (DOOH203): nothing was sent. Run apply again: its plan reactivates them`,
  );
}

async function execute(
  io: CliIO,
  prepared: Prepared,
  flags: ApplyFlags,
): Promise<{ result: ApplyResult; signal: InterruptSignal | undefined }> {
  const { plan, client } = prepared;
  const controller = new AbortController();
  let signal: InterruptSignal | undefined;
  const offInterrupt = io.onInterrupt?.((received) => {
    signal = received;
    io.stderr.write(
      `\ndoohctl apply: ${received}: no further change is sent; reactivating what this apply paused (${received} again exits at once)\n`,
    );
    controller.abort(new Error("interrupted"));
  });
  const journal: ApplyJournal | undefined =
    flags.log !== undefined ? openFileJournal(resolve(io.cwd, flags.log)) : undefined;
  const display = createProgressDisplay({
    sink: io.stderr,
    clock: systemClock,
    writeWindow: writeWindowOf(plan),
  });
  const record = prepared.recovery.begin(new Date(systemClock.now()).toISOString());
  const recovery: RecoveryPort = {
    pausing: (entries) => record.add(entries),
    reactivated: (ids) => {
      try {
        record.remove(ids);
        prepared.recovery.drop(ids);
      } catch (error) {
        io.stderr.write(
          `doohctl apply: warning: could not update the recovery record: ${(error as Error).message}\n`,
        );
      }
    },
  };
  let lock: ApplyLock | undefined;
  try {
    lock = await acquireApplyLock({
      stateDir: defaultStateDir(io.env),
      scope: { origin: prepared.origin, environment: prepared.environment, user: io.env.DOOHCTL_EMAIL ?? "" },
      clock: systemClock,
      signal: controller.signal,
      onWait: (holder) =>
        io.stderr.write(
          `doohctl apply: waiting for another apply of this account (pid ${holder.pid}, started ${holder.started_at}) to finish\n`,
        ),
    }).catch((error: unknown) => {
      // Ctrl-C while waiting: no request was sent, so there is nothing to restore.
      throw signal !== undefined ? new InterruptedBeforeSending(signal) : error;
    });
    refuseIfOwnerDied(prepared);
    const result = await applyPlan({
      plan,
      client,
      signal: controller.signal,
      recovery,
      onEvent: (event) => display.onEvent(event),
      ...(journal ? { journal } : {}),
    });
    return { result, signal };
  } finally {
    lock?.release();
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
