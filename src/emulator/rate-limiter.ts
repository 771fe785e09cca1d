/** G10: sliding windows per `kind:key` (user or IP); a refused request does not count. */
import type { RateLimits, RequestClass } from "../model/limits.js";

export class RateLimiter {
  private readonly windows = new Map<string, number[]>();

  constructor(private readonly limits: RateLimits | "off") {}

  /** Records the request when it fits in its window (undefined); otherwise the seconds until it would. */
  take(kind: RequestClass, key: string, now: number): number | undefined {
    if (this.limits === "off") return undefined;
    const { limit, windowMs } = this.limits[kind];
    const id = `${kind}:${key}`;
    const stamps = this.windows.get(id) ?? [];
    this.windows.set(id, stamps);
    // A request made at t counts while now < t + windowMs.
    let expired = 0;
    while (expired < stamps.length && stamps[expired]! + windowMs <= now) expired++;
    if (expired > 0) stamps.splice(0, expired);
    if (stamps.length >= limit) {
      const wait = stamps[0]! + windowMs - now;
      return Math.max(1, Math.ceil(wait / 1000));
    }
    stamps.push(now);
    return undefined;
  }

  clear(): void {
    this.windows.clear();
  }
}
