/**
 * The plan `doohctl apply` is about to apply, with the client that read its objects and the
 * recovery record it was made with; and the refusals that say nothing was sent.
 */
import type { DspClient } from "../../api/types.js";
import type { RecoveryStore } from "../../apply/recovery.js";
import type { RecordedPause } from "../../model/recovery.js";
import type { Plan } from "../../plan/types.js";
import type { CliIO } from "../io.js";

/** A usage or precondition problem: said on stderr, exit 1, nothing sent. */
export class ApplyRefused extends Error {
  override readonly name = "ApplyRefused";
  readonly code = "APPLY_REFUSED";
}

export interface PreparedApply {
  plan: Plan;
  client: DspClient;
  recovery: RecoveryStore;
  /** The recovery record's entries the plan was made with. */
  recorded: readonly RecordedPause[];
  origin: string;
  environment: string;
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
