/**
 * The pacing layer: each attempt waits for a slot of its class's window (limiter.ts), then
 * runs its BeforeSend (after every wait, docs/apply.md; a refusal is a NotSent), is counted,
 * and is reported as `sent` and `response` events.
 */
import type { Clock } from "../../model/clock.js";
import type { RateLimits, RequestClass } from "../../model/limits.js";
import { TimeoutError } from "../errors.js";
import { type Grant, WindowLimiter } from "../limiter.js";
import type { PacingLog } from "../pacing-log.js";
import { type Attempt, attempt, type Layer, NotSent } from "../send.js";
import type { ApiEvent, ClientStats } from "../types.js";

export interface PacedOptions {
  rateLimits: RateLimits;
  concurrency: Record<RequestClass, number>;
  clock: Clock;
  /** Extra hold of a slot after response + window. */
  marginMs: number;
  pacingLog: PacingLog | undefined;
  emit: (event: ApiEvent) => void;
  stats: ClientStats;
  /** The transport's whole-request deadline: each `sent` event says when it runs out. */
  requestTimeoutMs: number;
}

function limiterFor(cls: RequestClass, options: PacedOptions): WindowLimiter {
  const { pacingLog, emit } = options;
  return new WindowLimiter({
    ...(pacingLog
      ? {
          shared: {
            others: (since) => pacingLog.others(cls, since),
            record: (at) => pacingLog.record(cls, at),
          },
        }
      : {}),
    window: options.rateLimits[cls],
    concurrency: options.concurrency[cls],
    clock: options.clock,
    marginMs: options.marginMs,
    onWait: (until, waitMs) => emit({ type: "wait", class: cls, reason: "rate-limit", until, waitMs }),
  });
}

export function paced(options: PacedOptions): Layer {
  const { clock, emit, stats } = options;
  const limiters: Record<RequestClass, WindowLimiter> = {
    get: limiterFor("get", options),
    write: limiterFor("write", options),
    session: limiterFor("session", options),
  };
  let lastId = 0;
  return (next) => async (exchange) => {
    const { request, cls, beforeSend } = exchange;
    const id = ++lastId;
    type Outcome = (Attempt & { grant: Grant; sentAt: number }) | { refused: unknown };
    const outcome = await limiters[cls].run<Outcome>(
      async (grant) => {
        // The check goes last, slot in hand: nothing waits between its look and the send.
        try {
          await beforeSend?.run({ mayHaveLanded: beforeSend.mayHaveLanded });
        } catch (error) {
          return { refused: error };
        }
        if (exchange.attempt > 1) stats.retries++;
        if (cls === "get") stats.reads++;
        else if (cls === "write") stats.writes++;
        emit({
          type: "sent",
          id,
          class: cls,
          method: request.method,
          path: request.path,
          tries: exchange.tries,
          deadline: clock.now() + options.requestTimeoutMs,
          timeoutMs: options.requestTimeoutMs,
        });
        const sentAt = clock.now();
        return { grant, sentAt, ...(await attempt(next, exchange)) };
      },
      // Neither a refused check nor a 429 reached the DSP's count (G10): the slot frees at once.
      { signal: exchange.signal, refused: (o) => "refused" in o || o.response?.status === 429 },
    );
    if ("refused" in outcome) throw new NotSent(outcome.refused);
    const { grant, sentAt, response, failure } = outcome;
    // A 5xx or no answer: the DSP may have done what it was asked (retry.ts).
    if (beforeSend && (failure || response.status >= 500)) beforeSend.mayHaveLanded = true;
    emit({
      type: "response",
      id,
      class: cls,
      method: request.method,
      path: request.path,
      items: exchange.items,
      status: response ? response.status : failure instanceof TimeoutError ? "timeout" : "network-error",
      durationMs: clock.now() - sentAt,
      attempt: exchange.attempt,
      waitedMs: exchange.waitedMs + grant.waitedMs,
    });
    if (failure) throw failure;
    return response;
  };
}
