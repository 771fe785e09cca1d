/**
 * The recovery record's entries (docs/safety.md, Recovery record): campaigns an apply paused
 * for a targeting change and meant to reactivate. Plain data shared by apply (which writes the
 * record) and plan (which plans the reactivation of what a stopped apply left paused). Holds
 * no secret: ids, names, times, and the account they belong to.
 */

/**
 * Which DSP account a record belongs to: the origin, the environment and the `account_id`
 * of the login answer (G9), never the API user or the process, so that every write user of
 * the account who carries the state sees it.
 */
export interface RecoveryScope {
  origin: string;
  environment: string;
  account_id: string;
  /**
   * `connection.account`, when the repository holds several (docs/safety.md, Keeping two
   * accounts apart): part of the key, so two configured accounts never share a record or a
   * lock, even on one origin, environment and DSP account. Absent for the single account.
   */
  account?: string | undefined;
}

/** The running apply that holds an entry: it will reactivate the campaign itself. */
export interface RecordHolder {
  host: string;
  pid: number;
  /** When its lease goes stale unless renewed (ISO 8601). */
  lease_expires_at: string;
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
   * True while the apply that paused it still runs (its lease is fresh, docs/safety.md): that
   * apply will reactivate it itself, so a plan made meanwhile must leave it alone.
   */
  owner_running: boolean;
  /** The running apply, when `owner_running`. */
  holder?: RecordHolder;
  /** The record file that holds the entry. */
  path?: string;
}

/** A record file, or an entry of one, that a plan does not act on: reported, left on disk. */
export interface RecordIssue {
  path: string;
  /**
   * `unreadable`: damaged, edited, or of a newer doohctl (its campaigns may be paused: an
   * error until the user settles it); `foreign`: it names another origin, environment or
   * account, and is never obeyed.
   */
  kind: "unreadable" | "foreign";
  reason: string;
}

/**
 * What settling the recovery record did (`doohctl apply --restore-only`, and every apply before
 * it refuses): campaigns reactivated, left inactive as the config declares, left to a running
 * apply, or not restored and why.
 */
export interface RecordSettled {
  reactivated: RecordedPause[];
  declared_inactive: RecordedPause[];
  held: RecordedPause[];
  not_restored: RecordedPause[];
  /**
   * Of stopped applies, of insertion orders this config does not declare (DOOH205): not read
   * and not touched (another config says whether they stay inactive), and maybe still paused.
   */
  undeclared: RecordedPause[];
  /** Why `not_restored` are not (the failed request). */
  error?: string;
  /** Record files or entries that cannot be read (DOOH206): campaigns they list may be paused. */
  unreadable: RecordIssue[];
}
