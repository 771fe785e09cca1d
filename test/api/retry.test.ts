import { describe, expect, it } from "vitest";
import { backoffMs, decideRetry, parseRetryAfter, type RetryPolicy } from "../../src/api/retry.js";

function policy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  return {
    maxAttempts: 3,
    maxRateLimited: 5,
    maxWaitMs: 120_000,
    baseDelayMs: 500,
    maxDelayMs: 30_000,
    random: () => 0.999,
    ...overrides,
  };
}

describe("parseRetryAfter", () => {
  it("reads delay seconds", () => {
    expect(parseRetryAfter("7", 0)).toBe(7_000);
  });
  it("reads an HTTP date relative to now", () => {
    const now = Date.UTC(2026, 10, 1, 12, 0, 0);
    expect(parseRetryAfter("Sun, 01 Nov 2026 12:00:30 GMT", now)).toBe(30_000);
  });
  it("ignores a missing or unreadable header", () => {
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
    expect(parseRetryAfter("soon", 0)).toBeUndefined();
  });
});

describe("backoffMs", () => {
  it("draws uniformly below a ceiling that doubles per retry (full jitter)", () => {
    expect(backoffMs(policy({ random: () => 0.5 }), 0)).toBe(250);
    expect(backoffMs(policy({ random: () => 0.5 }), 3)).toBe(2_000);
    expect(backoffMs(policy({ random: () => 0 }), 3)).toBe(0);
  });
  it("never exceeds the maximum delay", () => {
    expect(backoffMs(policy(), 40)).toBeLessThan(30_000);
  });
});

describe("decideRetry", () => {
  const base = { idempotent: true, failures: 0, rateLimited: 0 };

  it("waits Retry-After on a 429, even for a POST (the server refused it unhandled)", () => {
    const decision = decideRetry({
      ...base,
      policy: policy(),
      idempotent: false,
      outcome: { kind: "status", status: 429, retryAfterMs: 12_000 },
      rateLimited: 1,
    });
    expect(decision).toEqual({ action: "retry", waitMs: 12_000, reason: "retry-after" });
  });

  it("backs off exponentially on a 429 without Retry-After", () => {
    const decision = decideRetry({
      ...base,
      policy: policy({ random: () => 0.5 }),
      outcome: { kind: "status", status: 429 },
      rateLimited: 2,
    });
    expect(decision).toEqual({ action: "retry", waitMs: 500, reason: "backoff" });
  });

  it("fails with a reason when the server asks for a wait over budget", () => {
    const decision = decideRetry({
      ...base,
      policy: policy({ maxWaitMs: 10_000 }),
      outcome: { kind: "status", status: 429, retryAfterMs: 45_000 },
      rateLimited: 1,
    });
    expect(decision).toMatchObject({ action: "over-budget", waitMs: 45_000 });
    expect(decision.action === "over-budget" && decision.detail).toContain("45 s");
  });

  it("gives up after too many 429s in a row", () => {
    const decision = decideRetry({
      ...base,
      policy: policy({ maxRateLimited: 2 }),
      outcome: { kind: "status", status: 429, retryAfterMs: 1_000 },
      rateLimited: 3,
    });
    expect(decision.action).toBe("give-up");
  });

  it("retries idempotent requests after 5xx, network errors and timeouts, a bounded number of times", () => {
    for (const outcome of [
      { kind: "status", status: 503 },
      { kind: "network-error" },
      { kind: "timeout" },
    ] as const) {
      expect(decideRetry({ ...base, policy: policy(), outcome, failures: 1 }).action).toBe("retry");
      expect(decideRetry({ ...base, policy: policy(), outcome, failures: 3 }).action).toBe("give-up");
    }
  });

  it("never repeats a POST whose outcome is unknown", () => {
    for (const outcome of [
      { kind: "status", status: 500 },
      { kind: "network-error" },
      { kind: "timeout" },
    ] as const) {
      const decision = decideRetry({
        ...base,
        policy: policy(),
        idempotent: false,
        outcome,
        failures: 1,
      });
      expect(decision.action).toBe("outcome-unknown");
    }
  });

  it("leaves successes and 4xx to the caller", () => {
    expect(decideRetry({ ...base, policy: policy(), outcome: { kind: "status", status: 200 } }).action).toBe(
      "none",
    );
    expect(decideRetry({ ...base, policy: policy(), outcome: { kind: "status", status: 422 } }).action).toBe(
      "none",
    );
  });
});
