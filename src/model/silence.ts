/** What errors and progress say of a request without an answer (docs/api-client.md "Retries"). */

/** Which attempt of how many (counted as `retry.maxAttempts` counts them): "attempt 2 of 4". */
export interface Tries {
  attempt: number;
  of: number;
}

export function triesText(tries: Tries): string {
  return `attempt ${tries.attempt} of ${tries.of}`;
}

/** `no answer after 60s (attempt 2 of 4)`; a deadline under a second in ms (`300ms`). */
export function noAnswerText(afterMs: number, tries?: Tries): string {
  const after = `no answer after ${afterMs < 1000 ? `${afterMs}ms` : `${Math.round(afterMs / 1000)}s`}`;
  return tries ? `${after} (${triesText(tries)})` : after;
}

/** Seconds left, rounded up: a wait not over never reads "0s". */
export function secondsLeft(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}
