/**
 * The retry layer carries out retry.ts: after a 429 (any method, G10), or a network error,
 * timeout or 5xx of an idempotent request, it waits on the Clock and sends again. A POST that
 * may have been applied is an OutcomeUnknownError, never sent again.
 */
import type { Clock } from "../../model/clock.js";
import type { Scrubber } from "../../model/scrub.js";
import { noAnswerText } from "../../model/silence.js";
import { apiError } from "../answer.js";
import { OutcomeUnknownError, RetryBudgetError, TimeoutError } from "../errors.js";
import { type AttemptOutcome, decideRetry, parseRetryAfter, type RetryPolicy } from "../retry.js";
import { attempt, type Layer } from "../send.js";
import type { HttpResponse } from "../transport.js";
import type { ApiEvent, ClientStats } from "../types.js";

export interface RetryingOptions {
  policy: RetryPolicy;
  clock: Clock;
  scrubber: Scrubber;
  emit: (event: ApiEvent) => void;
  stats: ClientStats;
}

function header(response: HttpResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function unknownDetail(failed: Error | undefined, detail: string): string {
  return failed instanceof TimeoutError && failed.noAnswer ? noAnswerText(failed.noAnswer.afterMs) : detail;
}

export function retrying({ policy, clock, scrubber, emit, stats }: RetryingOptions): Layer {
  return (next) => async (exchange) => {
    const { request, cls, signal, idempotent } = exchange;
    let failures = 0;
    let rateLimited = 0;
    let waitedMs = 0;
    const of = idempotent ? policy.maxAttempts : 1;
    for (let attemptNo = 1; ; attemptNo++) {
      const tries = { attempt: Math.min(failures + 1, of), of };
      const { response, failure } = await attempt(next, { ...exchange, attempt: attemptNo, waitedMs, tries });
      const outcome: AttemptOutcome = response
        ? {
            kind: "status",
            status: response.status,
            retryAfterMs: parseRetryAfter(header(response, "retry-after"), clock.now()),
          }
        : { kind: failure instanceof TimeoutError ? "timeout" : "network-error" };
      if (response?.status === 429) {
        stats.rateLimited++;
        rateLimited++;
      } else if (!response || response.status >= 500) {
        failures++;
      }
      // A trickled answer is no blip: another attempt would hold the run for another deadline.
      if (failure instanceof TimeoutError && failure.trickling && idempotent) throw failure;
      // The last error names its attempt of how many: a dead DSP is told from a slow one.
      const failed = failure instanceof TimeoutError ? failure.withTries(tries) : failure;
      const decision = decideRetry({ policy, idempotent, outcome, failures, rateLimited });
      switch (decision.action) {
        case "none":
          return response!;
        case "retry": {
          emit({
            type: "wait",
            class: cls,
            reason: decision.reason,
            until: clock.now() + decision.waitMs,
            waitMs: decision.waitMs,
          });
          await clock.sleep(decision.waitMs, signal);
          waitedMs = decision.waitMs;
          continue;
        }
        case "over-budget":
          throw new RetryBudgetError(request.method, request.path, decision.detail);
        case "give-up":
          if (failed) throw failed;
          if (response && response.status !== 429) throw apiError(request, response, scrubber, failures);
          throw new RetryBudgetError(request.method, request.path, decision.detail);
        case "outcome-unknown":
          // A POST that got no answer says so, and for how long, not just "timeout".
          throw new OutcomeUnknownError(
            request.method,
            request.path,
            unknownDetail(failed, decision.detail),
            {
              cause: failed,
              answered: response !== undefined,
            },
          );
      }
    }
  };
}
