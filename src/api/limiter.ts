/**
 * Client-side pacing for one request class, so the client's own traffic never draws a 429 from
 * a server that counts sliding windows (G10). A p-queue owns the queue (FIFO, `concurrency` in
 * flight, abort by signal); each task then passes a window gate on the injected Clock. p-queue's
 * `interval` counts a task at its start on real timers, while the server counts a request at
 * its arrival (docs/api-client.md, Rate limits and pacing), so the queue has no `interval` or
 * `timeout`, which keeps it off real timers altogether.
 */
import PQueue from "p-queue";
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
  /** Other runs' requests of this class (`pacing-log.ts`): read before each grant, told of this run's. */
  shared?: {
    /** When other runs' counted requests started cooling down, after `since`. */
    others(since: number): number[];
    record(at: number): void;
  };
}

/** When a request was sent, for its ApiEvent. */
export interface Grant {
  /** Clock time at which the window let it go (the send time). */
  grantedAt: number;
  /** Clock time spent queued for it, in the queue and at the gate. */
  waitedMs: number;
}

export interface RunOptions<T> {
  /** Aborts the request while it is queued or waiting for the window. */
  signal?: AbortSignal | undefined;
  /** True for a result the server refused with 429: not counted (G10), its slot frees at once. */
  refused?: (result: T) => boolean;
}

type Outcome = "counted" | "refused";

export class WindowLimiter {
  private readonly queue: PQueue;
  private readonly gate: WindowGate;
  private readonly clock: Clock;

  constructor(options: WindowLimiterOptions) {
    // No `interval` and no `timeout`: the window is the gate's job, on the injected clock.
    this.queue = new PQueue({ concurrency: options.concurrency });
    this.gate = new WindowGate(options);
    this.clock = options.clock;
  }

  /**
   * Sends one request when its turn comes and the window allows. Its slot counts until `send`
   * settles plus one window; a throw counts too (the server may have seen it).
   */
  run<T>(send: (grant: Grant) => Promise<T>, options: RunOptions<T> = {}): Promise<T> {
    const { signal, refused } = options;
    const queuedAt = this.clock.now();
    return this.queue.add(
      async () => {
        const settle = await this.gate.enter(signal);
        const grantedAt = this.clock.now();
        let result: T;
        try {
          result = await send({ grantedAt, waitedMs: grantedAt - queuedAt });
        } catch (error) {
          settle("counted");
          throw error;
        }
        settle(refused?.(result) ? "refused" : "counted");
        return result;
      },
      { signal },
    );
  }

  /** Requests waiting for their turn in the queue (not yet at the gate). */
  get queued(): number {
    return this.queue.size;
  }

  /** Slots currently counted against the window (in flight or cooling down). */
  get occupied(): number {
    return this.gate.occupied;
  }
}

interface Held {
  /** Clock time at which the slot frees; undefined while the request is in flight. */
  freeAt: number | undefined;
}

interface Waiter {
  resolve: (settle: (outcome: Outcome) => void) => void;
  /** Its wait was announced (onWait) while it headed the queue. */
  announced?: boolean;
}

/** The held-slot accounting of one window; entered in p-queue's order, so FIFO too. */
class WindowGate {
  private held: Held[] = [];
  private waiters: Waiter[] = [];
  private timerAt: number | undefined;
  private readonly options: WindowLimiterOptions;

  constructor(options: WindowLimiterOptions) {
    this.options = options;
  }

  get occupied(): number {
    this.prune();
    return this.held.length + this.othersFreeAt().length;
  }

  /** When the slots other runs hold free, cooling down as our own do. */
  private othersFreeAt(): number[] {
    const { shared, window, marginMs, clock } = this.options;
    if (!shared) return [];
    const hold = window.windowMs + marginMs;
    return shared.others(clock.now() - hold).map((at) => at + hold);
  }

  /** Resolves with the slot's settle function once the window has room for one more send. */
  enter(signal: AbortSignal | undefined): Promise<(outcome: Outcome) => void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        resolve: (settle) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(settle);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
      this.pump();
    });
  }

  private prune(): void {
    const now = this.options.clock.now();
    this.held = this.held.filter((h) => h.freeAt === undefined || h.freeAt > now);
  }

  private pump(): void {
    const { window, clock } = this.options;
    this.prune();
    if (this.waiters.length === 0) return;
    const others = this.othersFreeAt();
    while (this.waiters.length > 0 && this.held.length + others.length < window.limit) {
      this.grant(this.waiters.shift()!);
    }
    if (this.waiters.length === 0) return;
    // Wake when the earliest cooling slot frees; in-flight slots wake us when they settle.
    const cooling = [
      ...this.held.map((h) => h.freeAt).filter((t): t is number => t !== undefined),
      ...others,
    ];
    if (cooling.length > 0) this.wakeAt(Math.min(...cooling), clock.now(), this.waiters[0]!);
  }

  private grant(waiter: Waiter): void {
    const { clock, window, marginMs } = this.options;
    const held: Held = { freeAt: undefined };
    this.held.push(held);
    let settled = false;
    waiter.resolve((outcome) => {
      if (settled) return;
      settled = true;
      if (outcome === "refused") this.held = this.held.filter((h) => h !== held);
      else {
        held.freeAt = clock.now() + window.windowMs + marginMs;
        this.options.shared?.record(clock.now());
      }
      this.pump();
    });
  }

  /**
   * Wakes the gate at `at`, announcing the head's wait once, and again when the wake moves
   * earlier; a head whose predecessor was aborted while waiting (Ctrl-C) too, though the timer runs.
   */
  private wakeAt(at: number, now: number, head: Waiter): void {
    const timerSet = this.timerAt !== undefined && this.timerAt <= at;
    if (!timerSet || !head.announced) {
      head.announced = true;
      this.options.onWait?.(at, at - now);
    }
    if (timerSet) return;
    this.timerAt = at;
    void this.options.clock.sleep(at - now).then(() => {
      if (this.timerAt === at) this.timerAt = undefined;
      this.pump();
    });
  }
}
