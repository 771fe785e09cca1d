/**
 * G10: sliding 60-second windows (configurable) per key: `get:<user>`, `write:<user>`,
 * `session:<ip>`. A refused request is not recorded, so it does not count against the window.
 */
import type { RateLimits, RequestClass } from "../model/limits.js";

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class RateLimiter {
  private readonly windows = new Map<string, number[]>();

  constructor(private readonly limits: RateLimits | "off") {}

  get settings(): RateLimits | "off" {
    return this.limits;
  }

  /** Records the request when it fits in its window; otherwise says how long until it would. */
  take(kind: RequestClass, key: string, now: number): RateDecision {
    if (this.limits === "off") return { allowed: true };
    const { limit, windowMs } = this.limits[kind];
    const id = `${kind}:${key}`;
    let stamps = this.windows.get(id);
    if (!stamps) {
      stamps = [];
      this.windows.set(id, stamps);
    }
    // A request made at t counts while now < t + windowMs.
    let expired = 0;
    while (expired < stamps.length && stamps[expired]! + windowMs <= now) expired++;
    if (expired > 0) stamps.splice(0, expired);
    if (stamps.length >= limit) {
      const wait = stamps[0]! + windowMs - now;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) };
    }
    stamps.push(now);
    return { allowed: true };
  }

  clear(): void {
    this.windows.clear();
  }
}
