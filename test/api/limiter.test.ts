import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WindowLimiter } from "../../src/api/limiter.js";
import { VirtualClock } from "../../src/model/clock.js";

const WINDOW = { limit: 3, windowMs: 60_000 };

function limiter(clock: VirtualClock, options: { concurrency?: number; limit?: number } = {}) {
  const waits: number[] = [];
  const instance = new WindowLimiter({
    window: { ...WINDOW, limit: options.limit ?? WINDOW.limit },
    concurrency: options.concurrency ?? 10,
    clock,
    marginMs: 1,
    onWait: (until) => waits.push(until),
  });
  return { instance, waits };
}

/** Lets promise chains settle without moving the clock. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("WindowLimiter", () => {
  it("grants every slot of a free window at once, without waiting", async () => {
    const clock = new VirtualClock();
    const { instance, waits } = limiter(clock);
    const slots = await Promise.all([instance.acquire(), instance.acquire(), instance.acquire()]);
    expect(slots.map((s) => s.waitedMs)).toEqual([0, 0, 0]);
    expect(waits).toEqual([]);
  });

  it("holds a slot from the send until the response plus one window", async () => {
    const clock = new VirtualClock();
    const start = clock.now();
    const { instance, waits } = limiter(clock, { limit: 1 });
    const first = await instance.acquire();
    let granted: number | undefined;
    void instance.acquire().then((slot) => {
      granted = slot.grantedAt;
    });
    clock.advance(5_000); // latency: the response comes 5 s after the send
    first.settle("counted");
    await flush();
    expect(waits).toEqual([start + 65_001]);
    clock.advance(60_000);
    await flush();
    expect(granted).toBeUndefined();
    clock.advance(1);
    await flush();
    expect(granted).toBe(start + 65_001);
  });

  it("frees the slot of a request the server refused with 429 at once", async () => {
    const clock = new VirtualClock();
    const { instance } = limiter(clock, { limit: 1 });
    const first = await instance.acquire();
    const second = instance.acquire();
    first.settle("refused");
    expect((await second).grantedAt).toBe(clock.now());
  });

  it("keeps at most `concurrency` requests in flight even with window budget left", async () => {
    const clock = new VirtualClock();
    const { instance } = limiter(clock, { concurrency: 2, limit: 10 });
    const a = await instance.acquire();
    await instance.acquire();
    let third = false;
    void instance.acquire().then(() => {
      third = true;
    });
    await flush();
    expect(third).toBe(false);
    a.settle("counted");
    await flush();
    expect(third).toBe(true);
  });

  it("grants in request order", async () => {
    const clock = new VirtualClock({ autoAdvance: true });
    const { instance } = limiter(clock, { limit: 2 });
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        instance.acquire().then((slot) => {
          order.push(i);
          slot.settle("counted");
        }),
      ),
    );
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("rejects a queued request when its signal aborts, and serves the next one", async () => {
    const clock = new VirtualClock();
    const { instance } = limiter(clock, { limit: 1 });
    const first = await instance.acquire();
    const controller = new AbortController();
    const aborted = instance.acquire(controller.signal);
    const next = instance.acquire();
    controller.abort(new Error("stop"));
    await expect(aborted).rejects.toThrow("stop");
    first.settle("refused");
    expect((await next).waitedMs).toBe(0);
  });

  it("never lets a server that counts at arrival see more than the limit in any window, whatever the latency", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 20_000 }), fc.double({ min: 0, max: 1, noNaN: true })), {
          minLength: 1,
          maxLength: 25,
        }),
        fc.integer({ min: 1, max: 4 }),
        async (requests, limit) => {
          const clock = new VirtualClock({ autoAdvance: true });
          const { instance } = limiter(clock, { limit, concurrency: 3 });
          const arrivals: number[] = [];
          await Promise.all(
            requests.map(async ([latency, at]) => {
              const slot = await instance.acquire();
              const arrival = Math.floor(slot.grantedAt + latency * at);
              await clock.sleep(latency);
              arrivals.push(arrival);
              slot.settle("counted");
            }),
          );
          arrivals.sort((a, b) => a - b);
          // G10 sliding window: arrivals in (t - 60 s, t] for every arrival t.
          for (const [i, t] of arrivals.entries()) {
            const inWindow = arrivals.slice(0, i + 1).filter((a) => a > t - WINDOW.windowMs).length;
            expect(inWindow).toBeLessThanOrEqual(limit);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
