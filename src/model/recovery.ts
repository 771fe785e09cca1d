/**
 * The recovery record's entries (docs/safety.md, Recovery record): campaigns an apply paused to
 * reactivate, written by apply and reactivated by plan. No secret: ids, names, times, account.
 */

/** A record's DSP account (G9's `account_id`), never the API user: every write user sees it. */
export interface RecoveryScope {
  origin: string;
  environment: string;
  account_id: string;
  /**
   * `connection.account` when the repository holds several (docs/safety.md, Keeping two accounts
   * apart): two configured accounts never share a record or a lock, even on one DSP account.
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
  /** Its apply still runs (a fresh lease) and will reactivate it: a plan leaves it alone. */
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

/** What settling the record did (`apply --restore-only`, and every apply before it refuses). */
export interface RecordSettled {
  reactivated: RecordedPause[];
  declared_inactive: RecordedPause[];
  held: RecordedPause[];
  not_restored: RecordedPause[];
  /** Of insertion orders this config does not declare (DOOH205): untouched, maybe still paused. */
  undeclared: RecordedPause[];
  /** Why `not_restored` are not (the failed request). */
  error?: string;
  /** Record files or entries that cannot be read (DOOH206): campaigns they list may be paused. */
  unreadable: RecordIssue[];
}
