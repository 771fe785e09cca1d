/**
 * What is said of a request that gets no answer (docs/api-client.md "Retries"):
 * one phrase for the client's errors and the progress displays alike.
 */

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

/**
 * Seconds left, rounded up, as a countdown shows them: a wait that has not ended never reads
 * "0s", and one that has ended is not shown at all.
 */
export function secondsLeft(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}
