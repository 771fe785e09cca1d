/**
 * Client-side pacing for one request class (GET, write or session), so the client's own
 * traffic never draws a 429 from a server that counts sliding windows (G10).
 *
 * The server counts a request at its arrival, which the client never sees: it lies somewhere
 * between the send and the response. So a slot is held from the send until the response
 * came back plus one window: whatever the latency, the server then sees at most `limit`
 * arrivals inside any window. A request refused with 429 is not counted by the server (G10)
 * and frees its slot at once. Requests leave in FIFO order as soon as a slot is free, up to
 * `concurrency` in flight, and every wait goes through the injected Clock, so tests run on
 * virtual time.
 *
 * This is a small purpose-built queue rather than p-queue: p-queue's interval cap counts
 * fixed intervals from the start of each task, which is not the latency-aware sliding window
 * this needs.
 */
import type { Clock } from "../model/clock.js";
import type { RateWindow } from "../model/limits.js";

export interface WindowLimiterOptions {
  window: RateWindow;
  /** Most requests of this class in flight at once. */
  concurrency: number;
  clock: Clock;
  /** Extra hold after `response + window`, against a server that counts the boundary in. */
  marginMs: number;
  /** Called when the head of the queue must wait for the window, with the wake time. */
  onWait?: (until: number, waitMs: number) => void;
}

/** A granted slot. Exactly one `settle` call ends it. */
export interface Slot {
  /** Clock time at which the slot was granted (the send time). */
  grantedAt: number;
  /** Clock time spent queued for it. */
  waitedMs: number;
  /** `counted`: the server may have counted it (any response but 429, or no response). */
  settle(outcome: "counted" | "refused"): void;
}

interface Held {
  /** Clock time at which the slot frees; undefined while the request is in flight. */
  freeAt: number | undefined;
}

interface Waiter {
  enqueuedAt: number;
  resolve: (slot: Slot) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

export class WindowLimiter {
  private held: Held[] = [];
  private queue: Waiter[] = [];
  private timerAt: number | undefined;
  private readonly options: WindowLimiterOptions;

  constructor(options: WindowLimiterOptions) {
    this.options = options;
  }

  /** Waits for a slot (FIFO). Rejects with the signal's reason on abort. */
  acquire(signal?: AbortSignal): Promise<Slot> {
    return new Promise<Slot>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const waiter: Waiter = {
        enqueuedAt: this.options.clock.now(),
        resolve,
        reject,
        signal,
        onAbort: undefined,
      };
      if (signal) {
        waiter.onAbort = () => {
          this.queue = this.queue.filter((w) => w !== waiter);
          reject(signal.reason);
          this.pump();
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.queue.push(waiter);
      this.pump();
    });
  }

  /** Slots currently counted against the window (in flight or cooling down). */
  get occupied(): number {
    this.prune();
    return this.held.length;
  }

  private prune(): void {
    const now = this.options.clock.now();
    this.held = this.held.filter((h) => h.freeAt === undefined || h.freeAt > now);
  }

  private pump(): void {
    const { window, concurrency, clock } = this.options;
    while (this.queue.length > 0) {
      this.prune();
      const inFlight = this.held.filter((h) => h.freeAt === undefined).length;
      if (this.held.length < window.limit && inFlight < concurrency) {
        this.grant(this.queue.shift()!);
        continue;
      }
      if (this.held.length >= window.limit) {
        // Wake when the earliest cooling slot frees; in-flight slots wake us when they settle.
        const cooling = this.held.map((h) => h.freeAt).filter((t): t is number => t !== undefined);
        if (cooling.length > 0) this.wakeAt(Math.min(...cooling), clock.now());
      }
      return;
    }
  }

  private grant(waiter: Waiter): void {
    const { clock, window, marginMs } = this.options;
    if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener("abort", waiter.onAbort);
    const held: Held = { freeAt: undefined };
    this.held.push(held);
    const grantedAt = clock.now();
    let settled = false;
    waiter.resolve({
      grantedAt,
      waitedMs: grantedAt - waiter.enqueuedAt,
      settle: (outcome) => {
        if (settled) return;
        settled = true;
        if (outcome === "refused") this.held = this.held.filter((h) => h !== held);
        else held.freeAt = clock.now() + window.windowMs + marginMs;
        this.pump();
      },
    });
  }

  private wakeAt(at: number, now: number): void {
    if (this.timerAt !== undefined && this.timerAt <= at) return;
    this.timerAt = at;
    this.options.onWait?.(at, at - now);
    void this.options.clock.sleep(at - now).then(() => {
      if (this.timerAt === at) this.timerAt = undefined;
      this.pump();
    });
  }
}
