/** When to try a request again, and after how long: pure decisions (G10; docs/api-client.md, Retries). */

export interface RetryPolicy {
  /** Attempts in all for one request after network errors, timeouts and 5xx. */
  maxAttempts: number;
  /** 429 answers tolerated for one request before giving up. */
  maxRateLimited: number;
  /** A single wait longer than this fails the request with a RetryBudgetError. */
  maxWaitMs: number;
  /** First backoff ceiling; doubles per retry. */
  baseDelayMs: number;
  /** Backoff ceiling never grows past this. */
  maxDelayMs: number;
  /** In [0, 1); jitter source. */
  random: () => number;
}

export type AttemptOutcome =
  | { kind: "status"; status: number; retryAfterMs?: number | undefined }
  | { kind: "network-error" }
  | { kind: "timeout" };

export type RetryDecision =
  | { action: "retry"; waitMs: number; reason: "retry-after" | "backoff" }
  /** The wait the server asks for is over budget. */
  | { action: "over-budget"; waitMs: number; detail: string }
  /** Attempts used up. */
  | { action: "give-up"; detail: string }
  /** A non-idempotent request may have been applied. */
  | { action: "outcome-unknown"; detail: string }
  /** Not a retryable outcome: the caller handles it (success, 4xx, auth). */
  | { action: "none" };

/** Parses `Retry-After`: delay seconds or an HTTP date (RFC 9110 section 10.2.3). */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^[0-9]+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Full jitter: uniform in [0, min(maxDelay, base * 2^retry)] (AWS architecture blog). */
export function backoffMs(policy: RetryPolicy, retryIndex: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(retryIndex, 30));
  return Math.floor(policy.random() * ceiling);
}

function describe(outcome: AttemptOutcome): string {
  return outcome.kind === "status" ? `status ${outcome.status}` : outcome.kind;
}

export function decideRetry(input: {
  policy: RetryPolicy;
  /** Not a POST, or a session creation, which may be repeated safely. */
  idempotent: boolean;
  outcome: AttemptOutcome;
  /** Attempts made so far that ended in a network error, timeout or 5xx (this one included). */
  failures: number;
  /** 429s so far for this request (this one included). */
  rateLimited: number;
}): RetryDecision {
  const { policy, outcome } = input;
  if (outcome.kind === "status" && outcome.status === 429) {
    if (input.rateLimited > policy.maxRateLimited) {
      return {
        action: "give-up",
        detail:
          `rate limited ${input.rateLimited} times in a row: other runs or tools use this API user's ` +
          "rate windows; lower connection.rate_limits to leave them room, or run again later",
      };
    }
    const waitMs = outcome.retryAfterMs ?? backoffMs(policy, input.rateLimited - 1);
    const reason = outcome.retryAfterMs !== undefined ? "retry-after" : "backoff";
    if (waitMs > policy.maxWaitMs) {
      return {
        action: "over-budget",
        waitMs,
        detail: `the DSP asks to wait ${Math.ceil(waitMs / 1000)} s, more than the ${Math.ceil(policy.maxWaitMs / 1000)} s allowed (raise it with --max-wait, or retry.maxWaitMs of the client)`,
      };
    }
    return { action: "retry", waitMs, reason };
  }
  const failed = outcome.kind !== "status" || outcome.status >= 500;
  if (!failed) return { action: "none" };
  if (!input.idempotent) return { action: "outcome-unknown", detail: describe(outcome) };
  if (input.failures >= policy.maxAttempts) {
    return { action: "give-up", detail: `${describe(outcome)} after ${input.failures} attempts` };
  }
  const waitMs = Math.min(backoffMs(policy, input.failures - 1), policy.maxWaitMs);
  return { action: "retry", waitMs, reason: "backoff" };
}
