/**
 * The pacing layer: each attempt waits for a slot of its class's window (limiter.ts, with the
 * other runs' slots of the pacing log), is counted in the stats, and is reported as a
 * `response` event once it is back.
 */
import type { Clock } from "../../model/clock.js";
import type { RateLimits, RequestClass } from "../../model/limits.js";
import { TimeoutError } from "../errors.js";
import { type Grant, WindowLimiter } from "../limiter.js";
import type { PacingLog } from "../pacing-log.js";
import { type Attempt, attempt, type Layer } from "../send.js";
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
    const { request, cls } = exchange;
    const id = ++lastId;
    const { grant, response, failure } = await limiters[cls].run<Attempt & { grant: Grant }>(
      async (grant) => {
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
        return { grant, ...(await attempt(next, exchange)) };
      },
      { signal: exchange.signal, refused: ({ response }) => response?.status === 429 },
    );
    emit({
      type: "response",
      id,
      class: cls,
      method: request.method,
      path: request.path,
      items: exchange.items,
      status: response ? response.status : failure instanceof TimeoutError ? "timeout" : "network-error",
      durationMs: clock.now() - grant.grantedAt,
      attempt: exchange.attempt,
      waitedMs: exchange.waitedMs + grant.waitedMs,
    });
    if (failure) throw failure;
    return response;
  };
}
