/** The plan `doohctl apply` is about to apply, with its client and recovery record; and its refusals. */
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
  /** Refused before a login (a plan for another tree, account, DSP or user): the record is not settled. */
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
 * Once live state matches the config, the plan's entries are settled (the rest are campaigns
 * declared inactive): dropped, so an old entry never reactivates one when `active: false` goes.
 * A running apply's entries are its own.
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
 * The plan left campaigns to a running apply (DOOH203): had it died while this one waited for
 * the lock, they would stay dark, so refuse before sending: the next run reactivates them.
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

/** At most 20 lines, indented, then how many more. */
export function shortList(lines: readonly string[]): string {
  const shown = lines.slice(0, 20).map((s) => `  ${s}`);
  if (lines.length > 20) shown.push(`  and ${lines.length - 20} more`);
  return shown.join("\n");
}

/** How often the wait for a running apply's lease says how long is left. */
const COUNTDOWN_EVERY_MS = 5_000;

/**
 * The plan left campaigns to running applies (DOOH203): waits, counting down to their lease's
 * expiry, until each ends or lapses (docs/apply.md), then the caller plans again. False when
 * nothing was held.
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
