/**
 * The recovery record's entries (design.md, Recovery record): campaigns an apply paused for a
 * targeting change and meant to reactivate. Plain data shared by apply (which writes the
 * record) and plan (which plans the reactivation of what a dead apply left paused). Holds no
 * secret: ids, names, times and the API user's name (which, with the origin and environment,
 * names the account: a user belongs to one account, spec Authentication 1).
 */

/** Which DSP account a record belongs to. */
export interface RecoveryScope {
  origin: string;
  environment: string;
  user: string;
}

/** One campaign paused by an apply that has not (yet) confirmed its reactivation. */
export interface RecordedPause {
  campaign_id: string;
  insertion_order_id: string;
  name: string;
  /** When the pause request was about to be sent (recorded before it was sent). */
  paused_at: string;
  /** The apply that paused it, and when that apply started. */
  apply_id: string;
  apply_started_at: string;
  /**
   * True while the apply that paused it still runs on this machine: that apply will
   * reactivate it itself, so a plan made meanwhile must leave it alone.
   */
  owner_running: boolean;
}
