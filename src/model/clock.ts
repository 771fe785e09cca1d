/** Time as a dependency: whatever waits or stamps takes a Clock, so tests run on virtual time. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms` of this clock's time; rejects with the signal's reason on abort. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Node's longest timer (about 24.8 days): a longer one fires at once, so a sleep is clamped to it. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(
        () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        Math.min(MAX_TIMER_MS, Math.max(0, ms)),
      );
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

interface Sleeper {
  wakeAt: number;
  seq: number;
  resolve: () => void;
}

/**
 * A clock that moves only when told (`advance`), or with `autoAdvance` jumps to the next wake
 * once the event loop is idle: shared by emulator and client, simulated minutes take milliseconds.
 */
export class VirtualClock implements Clock {
  private current: number;
  private seq = 0;
  private sleepers: Sleeper[] = [];
  private pumping = false;
  private readonly autoAdvance: boolean;

  constructor(options: { start?: number; autoAdvance?: boolean } = {}) {
    this.current = options.start ?? Date.UTC(2026, 10, 1);
    this.autoAdvance = options.autoAdvance ?? false;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const sleeper: Sleeper = { wakeAt: this.current + Math.max(0, ms), seq: this.seq++, resolve };
      if (signal) {
        signal.addEventListener(
          "abort",
          () => {
            this.sleepers = this.sleepers.filter((s) => s !== sleeper);
            reject(signal.reason);
          },
          { once: true },
        );
      }
      this.sleepers.push(sleeper);
      this.sleepers.sort((a, b) => a.wakeAt - b.wakeAt || a.seq - b.seq);
      this.wakeDue();
      if (this.autoAdvance) this.schedulePump();
    });
  }

  /** Moves time forward and wakes every sleeper that is due, in wake order. */
  advance(ms: number): void {
    this.current += Math.max(0, ms);
    this.wakeDue();
  }

  /** Sets the time (never backwards). */
  set(ms: number): void {
    if (ms > this.current) this.current = ms;
    this.wakeDue();
  }

  /** How many sleepers are waiting: tests use it to see that a limiter is holding requests. */
  get pending(): number {
    return this.sleepers.length;
  }

  private wakeDue(): void {
    while (this.sleepers.length > 0 && this.sleepers[0]!.wakeAt <= this.current) {
      this.sleepers.shift()!.resolve();
    }
  }

  /** A few macrotask turns before each jump, so work not waiting on this clock runs at its time. */
  private schedulePump(): void {
    if (this.pumping) return;
    this.pumping = true;
    const settleTurns = 5;
    let turns = 0;
    const tick = () => {
      if (this.sleepers.length === 0) {
        this.pumping = false;
        return;
      }
      if (++turns < settleTurns) {
        setImmediate(tick);
        return;
      }
      turns = 0;
      this.set(this.sleepers[0]!.wakeAt);
      setImmediate(tick);
    };
    setImmediate(tick);
  }
}

/**
 * Real time plus an offset that only moves forward: the command-line emulator's control path
 * jumps time while sleeps stay real. `start` sets where it begins (a demo on a chosen day).
 */
export class OffsetClock implements Clock {
  private offset: number;

  constructor(options: { start?: number } = {}) {
    this.offset = options.start === undefined ? 0 : options.start - Date.now();
  }

  now(): number {
    return Date.now() + this.offset;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return systemClock.sleep(ms, signal);
  }

  advance(ms: number): void {
    this.offset += Math.max(0, ms);
  }

  /** Sets the time (never backwards). */
  set(ms: number): void {
    this.offset += Math.max(0, ms - this.now());
  }
}
