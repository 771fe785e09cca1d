import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type Grant, WindowLimiter } from "../../src/api/limiter.js";
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

/**
 * One request through the limiter whose response the test decides: `sent` resolves at the
 * send, `answer(status)` is its response (429 is a refusal), `done` is what `run` returns.
 */
function request(instance: WindowLimiter, signal?: AbortSignal) {
  let answer!: (status: number) => void;
  const response = new Promise<number>((resolve) => {
    answer = resolve;
  });
  let grant: Grant | undefined;
  let done!: Promise<number>;
  const sent = new Promise<Grant>((resolve) => {
    done = instance.run(
      async (g) => {
        grant = g;
        resolve(g);
        return response;
      },
      { signal, refused: (status) => status === 429 },
    );
  });
  return { sent, done, answer, isSent: () => grant !== undefined };
}

/** Lets promise chains settle without moving the clock. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.restoreAllMocks();
});

describe("WindowLimiter", () => {
  it("sends every request of a free window at once, without waiting", async () => {
    const clock = new VirtualClock();
    const { instance, waits } = limiter(clock);
    const grants = await Promise.all(
      [request(instance), request(instance), request(instance)].map((r) => r.sent),
    );
    expect(grants.map((g) => g.waitedMs)).toEqual([0, 0, 0]);
    expect(waits).toEqual([]);
  });

  it("holds a slot from the send until the response plus one window", async () => {
    const clock = new VirtualClock();
    const start = clock.now();
    const { instance, waits } = limiter(clock, { limit: 1 });
    const first = request(instance);
    await first.sent;
    const second = request(instance);
    clock.advance(5_000); // latency: the response comes 5 s after the send
    first.answer(200);
    expect(await first.done).toBe(200);
    await flush();
    expect(waits).toEqual([start + 65_001]);
    clock.advance(60_000);
    await flush();
    expect(second.isSent()).toBe(false);
    clock.advance(1);
    expect((await second.sent).grantedAt).toBe(start + 65_001);
    expect((await second.sent).waitedMs).toBe(65_001);
  });

  it("frees the slot of a request the server refused with 429 at once", async () => {
    const clock = new VirtualClock();
    const { instance } = limiter(clock, { limit: 1 });
    const first = request(instance);
    await first.sent;
    const second = request(instance);
    first.answer(429);
    expect((await second.sent).grantedAt).toBe(clock.now());
  });

  it("counts a request whose send threw, since the server may have seen it", async () => {
    const clock = new VirtualClock();
    const { instance, waits } = limiter(clock, { limit: 1 });
    const failed = instance.run(async () => {
      throw new Error("connection reset");
    });
    await expect(failed).rejects.toThrow("connection reset");
    const next = request(instance);
    await flush();
    expect(next.isSent()).toBe(false);
    expect(waits).toEqual([clock.now() + 60_001]);
  });

  it("keeps at most `concurrency` requests in flight even with window budget left", async () => {
    const clock = new VirtualClock();
    const { instance } = limiter(clock, { concurrency: 2, limit: 10 });
    const a = request(instance);
    const b = request(instance);
    await Promise.all([a.sent, b.sent]);
    const third = request(instance);
    await flush();
    expect(third.isSent()).toBe(false);
    expect(instance.queued).toBe(1);
    a.answer(200);
    await third.sent;
    expect(instance.queued).toBe(0);
    expect(instance.occupied).toBe(3);
  });

  it("sends in request order", async () => {
    const clock = new VirtualClock({ autoAdvance: true });
    const { instance } = limiter(clock, { limit: 2, concurrency: 3 });
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        instance.run(async () => {
          order.push(i);
        }),
      ),
    );
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("rejects a request waiting for the window when its signal aborts, and serves the next one", async () => {
    const clock = new VirtualClock();
    const { instance } = limiter(clock, { limit: 1 });
    const first = request(instance);
    await first.sent;
    const controller = new AbortController();
    const aborted = request(instance, controller.signal);
    const next = request(instance);
    controller.abort(new Error("stop"));
    await expect(aborted.done).rejects.toThrow("stop");
    first.answer(429);
    expect((await next.sent).waitedMs).toBe(0);
    expect(aborted.isSent()).toBe(false);
  });

  it("announces the wait of a request that comes after an aborted one waiting for the same slot", async () => {
    // Apply's reactivation after Ctrl-C: the abandoned write waited for the slot it now needs.
    const clock = new VirtualClock();
    const { instance, waits } = limiter(clock, { limit: 1, concurrency: 1 });
    const first = request(instance);
    await first.sent;
    first.answer(200);
    await first.done;
    const controller = new AbortController();
    const aborted = request(instance, controller.signal);
    await flush();
    expect(waits).toEqual([clock.now() + 60_001]);
    controller.abort(new Error("stop"));
    await expect(aborted.done).rejects.toThrow("stop");
    clock.advance(20_000);
    const next = request(instance);
    await flush();
    expect(next.isSent()).toBe(false);
    expect(waits).toEqual([clock.now() + 40_001, clock.now() + 40_001]);
  });

  it("rejects a request queued behind the concurrency cap when its signal aborts, and serves the next one", async () => {
    const clock = new VirtualClock();
    const { instance } = limiter(clock, { concurrency: 1, limit: 10 });
    const first = request(instance);
    await first.sent;
    const controller = new AbortController();
    const aborted = request(instance, controller.signal);
    const next = request(instance);
    expect(instance.queued).toBe(2);
    controller.abort(new Error("stop"));
    await expect(aborted.done).rejects.toThrow("stop");
    expect(instance.queued).toBe(1);
    first.answer(200);
    await next.sent;
    expect(aborted.isSent()).toBe(false);
  });

  it("waits for the window on the injected clock only, never on a real timer", async () => {
    const setTimeoutSpy = vi.spyOn(globalThis, "setTimeout");
    const setIntervalSpy = vi.spyOn(globalThis, "setInterval");
    const clock = new VirtualClock();
    const { instance } = limiter(clock, { limit: 1, concurrency: 1 });
    const requests = [request(instance), request(instance), request(instance)];
    for (const r of requests) {
      await r.sent;
      r.answer(200);
      await r.done;
      await flush();
      clock.advance(60_001);
    }
    expect(setTimeoutSpy).not.toHaveBeenCalled();
    expect(setIntervalSpy).not.toHaveBeenCalled();
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
            requests.map(([latency, at]) =>
              instance.run(async ({ grantedAt }) => {
                arrivals.push(Math.floor(grantedAt + latency * at));
                await clock.sleep(latency);
              }),
            ),
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
