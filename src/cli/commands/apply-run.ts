/** `doohctl apply` once approved: lock, signals, progress, journal and record around apply/execute.ts. */
import { resolve } from "node:path";
import { applyPlan } from "../../apply/execute.js";
import { type ApplyJournal, openFileJournal } from "../../apply/journal.js";
import { type ApplyLock, acquireApplyLock } from "../../apply/lock.js";
import type { RecoveryPort } from "../../apply/restore.js";
import type { ApplyResult } from "../../model/apply-report.js";
import {
  PUBLISHED_RATE_LIMITS,
  RateLimit,
  RateLimitSyntaxError,
  type RateWindow,
} from "../../model/limits.js";
import type { Plan } from "../../plan/types.js";
import type { CliIO, InterruptSignal } from "../io.js";
import { createProgressDisplay } from "../progress.js";
import { applyInterrupts, type PausedCampaign } from "./apply-interrupt.js";
import { type PreparedApply, refuseIfOwnerDied } from "./apply-prepared.js";

/** Stopped by a signal before any request was sent (while waiting for the apply lock). */
export class InterruptedBeforeSending extends Error {
  override readonly name = "InterruptedBeforeSending";
  constructor(readonly signal: InterruptSignal) {
    super(`interrupted (${signal}) while waiting for another apply of this account: nothing was sent`);
  }
}

/** `parse()`, or undefined when what it parses is not a rate window. */
function windowOrUndefined(parse: () => RateWindow): RateWindow | undefined {
  try {
    return parse();
  } catch (error) {
    if (error instanceof RateLimitSyntaxError) return undefined;
    throw error;
  }
}

/** The windows the plan was made for; plans from before they were recorded give the write window only. */
function writeWindowOf(plan: Plan): RateWindow {
  const recorded = plan.connection.rate_limits;
  return (
    (recorded !== undefined ? windowOrUndefined(() => RateLimit.parseList(recorded).write) : undefined) ??
    windowOrUndefined(() => RateLimit.parseWindow(plan.summary.write_window)) ??
    PUBLISHED_RATE_LIMITS.write
  );
}

/**
 * Applies the prepared plan under the account's lock, the record told of every pause; the first
 * signal stops it, delivery restored before it returns (later signals: apply-interrupt.ts).
 */
export async function runApply(
  io: CliIO,
  prepared: PreparedApply,
  options: {
    log: string | undefined;
    /** Once the lock is taken after a wait, nothing sent yet: judges the plan again (ApplyRefused). */
    rejudge?: () => Promise<void>;
  },
): Promise<{ result: ApplyResult; signal: InterruptSignal | undefined }> {
  const { plan, client } = prepared;
  const controller = new AbortController();
  // Paused (or about to be) and not yet seen active again: what a second Ctrl-C leaves dark.
  const paused = new Map<string, PausedCampaign>();
  const interrupts = applyInterrupts({
    io,
    stop: () => controller.abort(new Error("interrupted")),
    stillPaused: () => [...paused.values()],
  });
  const offInterrupt = io.onInterrupt?.((received) => interrupts.onSignal(received));
  const journal: ApplyJournal | undefined =
    options.log !== undefined ? openFileJournal(resolve(io.cwd, options.log)) : undefined;
  const display = createProgressDisplay({
    sink: io.stderr,
    clock: io.clock,
    writeWindow: writeWindowOf(plan),
  });
  const record = prepared.recovery.begin(new Date(io.clock.now()).toISOString());
  const recovery: RecoveryPort = {
    pausing: (entries) => {
      record.add(entries);
      for (const e of entries) paused.set(e.campaign_id, { campaign_id: e.campaign_id, name: e.name });
    },
    reactivated: (ids) => {
      for (const id of ids) paused.delete(id);
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
  let waited = false;
  try {
    lock = await acquireApplyLock({
      dir: prepared.connection.lockDir,
      scope: prepared.recovery.scope,
      clock: io.clock,
      signal: controller.signal,
      onWait: (holder) => {
        waited = true;
        io.stderr.write(
          `doohctl apply: waiting for another apply of this account (pid ${holder.pid}, started ${holder.started_at}; its lease expires at ${holder.lease_expires_at} unless renewed) to finish\n`,
        );
      },
    }).catch((error: unknown) => {
      // Ctrl-C while waiting: no request was sent, so there is nothing to restore.
      throw interrupts.first !== undefined ? new InterruptedBeforeSending(interrupts.first) : error;
    });
    // Every wait ends in a fresh look: the other apply may have changed what this plan read.
    if (waited) await options.rejudge?.();
    refuseIfOwnerDied(prepared);
    const result = await applyPlan({
      plan,
      client,
      signal: controller.signal,
      recovery,
      onEvent: (event) => display.onEvent(event),
      ...(journal ? { journal } : {}),
      // The client is this run's: the summary counts all it sent, the plan's reads too.
      countFrom: { reads: 0, writes: 0, logins: 0, retries: 0, rateLimited: 0 },
    });
    return { result, signal: interrupts.first };
  } finally {
    record.end();
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
