/**
 * The plan `doohctl apply` is about to apply, with the client that read its objects and the
 * recovery record it was made with; and the refusals that say nothing was sent.
 */
import type { DspClient } from "../../api/types.js";
import type { RecoveryStore } from "../../apply/recovery.js";
import type { Clock } from "../../model/clock.js";
import type { DesiredState } from "../../model/desired.js";
import type { RecordedPause } from "../../model/recovery.js";
import type { Plan } from "../../plan/types.js";
import type { Connection } from "../connection.js";
import type { CliIO } from "../io.js";

/** A usage or precondition problem: said on stderr, exit 1, nothing sent. */
export class ApplyRefused extends Error {
  override readonly name = "ApplyRefused";
  readonly code = "APPLY_REFUSED";
  /**
   * Refused before logging in because the plan is not for this tree, account, DSP or user:
   * no login is made for it, so the record is not settled (apply --restore-only does that).
   */
  readonly beforeLogin: boolean;
  constructor(message: string, options: { beforeLogin?: boolean } = {}) {
    super(message);
    this.beforeLogin = options.beforeLogin ?? false;
  }
}

export interface PreparedApply {
  plan: Plan;
  /** The config the plan was made from: what settling the record before a refusal obeys. */
  desired: DesiredState;
  client: DspClient;
  recovery: RecoveryStore;
  /** The recovery record's entries the plan was made with. */
  recorded: readonly RecordedPause[];
  /** The connection the plan was read through: the apply lock's directory among its places. */
  connection: Connection;
}

/**
 * Once live state matches the config, every entry the plan was made with is settled: those it
 * reactivated are gone already, and the rest are campaigns the config declares inactive (or an
 * insertion order with `unmanaged_campaigns: deactivate`). Dropping them keeps an old entry
 * from reactivating a campaign long after, when `active: false` is taken out of the config.
 * Entries of an apply still running are its own.
 */
export function settleRecorded(io: CliIO, prepared: PreparedApply): void {
  const settled = prepared.recorded.filter((e) => !e.owner_running).map((e) => e.campaign_id);
  try {
    prepared.recovery.drop(settled);
  } catch (error) {
    io.stderr.write(
      `doohctl apply: warning: could not tidy the recovery record: ${(error as Error).message}\n`,
    );
  }
}

/**
 * The plan left campaigns to the apply that paused them and was running then (DOOH203). Had
 * it died while this one waited for the lock, this plan would leave them dark: refuse before
 * sending anything, so that the next run plans their reactivation.
 */
export function refuseIfOwnerDied(prepared: PreparedApply): void {
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

/** How often the wait for a running apply's lease says how long is left. */
const COUNTDOWN_EVERY_MS = 5_000;

/**
 * The plan left campaigns to applies still running (DOOH203): waits, with a countdown to
 * their lease's expiry, until each has finished or its lease is stale (docs/apply.md). The
 * caller then plans again: the campaigns are active, or the new plan reactivates them.
 * Returns false when nothing was held; throws InterruptedWaiting on a signal.
 */
export async function waitForHolders(
  io: CliIO,
  prepared: PreparedApply,
  options: { clock: Clock; signal: AbortSignal },
): Promise<boolean> {
  const held = new Set(prepared.recorded.filter((e) => e.owner_running).map((e) => e.campaign_id));
  if (held.size === 0) return false;
  let toldAt = Number.NEGATIVE_INFINITY;
  for (;;) {
    const still = prepared.recovery.read().filter((e) => e.owner_running && held.has(e.campaign_id));
    if (still.length === 0) return true;
    const now = options.clock.now();
    if (now - toldAt >= COUNTDOWN_EVERY_MS) {
      toldAt = now;
      const expiry = Math.max(...still.map((e) => Date.parse(e.holder?.lease_expires_at ?? "") || now));
      const holders = [
        ...new Set(
          still.map((e) => `${e.apply_id} (host ${e.holder?.host || "unnamed"}, pid ${e.holder?.pid})`),
        ),
      ];
      io.stderr.write(
        `doohctl apply: ${still.length === 1 ? "1 campaign" : `${still.length} campaigns`} paused by running apply ${holders.join(", ")}: waiting for it to finish, or for its lease to lapse in ${Math.max(0, Math.ceil((expiry - now) / 1000))} s unless renewed\n`,
      );
    }
    await options.clock.sleep(1_000, options.signal);
  }
}
