/**
 * Every default of DspClientOptions, in one place: each is documented with `@default` on the
 * option it fills (types.ts), and `withDefaults` fills them once, so no layer carries one.
 */
import { type Clock, systemClock } from "../model/clock.js";
import { PUBLISHED_RATE_LIMITS, type RequestClass } from "../model/limits.js";
import type { DspClientOptions } from "./types.js";

export const CLIENT_DEFAULTS = {
  rateLimits: PUBLISHED_RATE_LIMITS,
  clock: systemClock as Clock,
  sessionCache: false as const,
  timeouts: { connectMs: 10_000, requestMs: 60_000 },
  // A page of 100 campaigns is about 30 KB: 16 MiB is room to spare, and what a 2 GB runner
  // reads beside a large plan (docs/safety.md, Size caps).
  maxResponseBytes: 16 * 1024 * 1024,
  retry: { maxAttempts: 4, maxWaitMs: 120_000, baseDelayMs: 500, maxDelayMs: 30_000, maxRateLimited: 10 },
  concurrency: { get: 8, write: 4, session: 1 } as Record<RequestClass, number>,
  rateMarginMs: 1,
  random: Math.random,
};

/** undici's `keepAliveTimeout` (transport.ts): not an option, here so every default has one home. */
export const KEEP_ALIVE_MS = 30_000;

/** The options the layers read, every default filled in. */
export function withDefaults(options: DspClientOptions) {
  return {
    clock: options.clock ?? CLIENT_DEFAULTS.clock,
    rateLimits: options.rateLimits ?? CLIENT_DEFAULTS.rateLimits,
    concurrency: { ...CLIENT_DEFAULTS.concurrency, ...options.concurrency },
    policy: { ...CLIENT_DEFAULTS.retry, ...options.retry, random: options.random ?? CLIENT_DEFAULTS.random },
    timeouts: { ...CLIENT_DEFAULTS.timeouts, ...options.timeouts },
    maxResponseBytes: options.maxResponseBytes ?? CLIENT_DEFAULTS.maxResponseBytes,
    rateMarginMs: options.rateMarginMs ?? CLIENT_DEFAULTS.rateMarginMs,
  };
}
