import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Time, TimeError } from "../../src/model/time.js";

describe("Time", () => {
  it("normalizes offsets to canonical UTC and compares as instants", () => {
    expect(Time.parse("2026-12-01T01:00:00+01:00")).toBe("2026-12-01T00:00:00Z");
    expect(Time.parse("2026-12-01T00:00:00.250Z")).toBe("2026-12-01T00:00:00.250Z");
    expect(Time.equals("2026-12-01T00:00:00Z", "2026-11-30T19:00:00-05:00")).toBe(true);
    expect(Time.compare("2026-12-01T00:00:00Z", "2026-12-01T00:00:01Z")).toBe(-1);
  });

  it("refuses dates that do not exist and times without a zone", () => {
    expect(() => Time.parse("2026-02-29T00:00:00Z")).toThrow(/day 29 does not exist/);
    expect(() => Time.parse("2026-12-01T00:00:00")).toThrow(/write it like 2026-12-01T00:00:00Z/);
    expect(() => Time.parse("2026-12-01")).toThrow(/ISO 8601/);
    expect(() => Time.parse("2026-12-01T24:00:00Z")).toThrow(/out of range/);
  });

  it("keeps years below 100 as written, with their own leap days", () => {
    // Date.UTC alone would read 0050 as 1950.
    expect(Time.parse("0050-06-01T00:00:00Z")).toBe("0050-06-01T00:00:00Z");
    expect(Time.parse("0096-02-29T00:00:00Z")).toBe("0096-02-29T00:00:00Z");
    expect(() => Time.parse("0099-02-29T00:00:00Z")).toThrow(/day 29 does not exist/);
    expect(() => Time.parse("2001-02-29T00:00:00Z")).toThrow(/day 29 does not exist/);
  });

  it("reads any number of fraction digits and keeps nine exactly (G14)", () => {
    expect(Time.parse("2026-12-01T00:00:00.123456Z")).toBe("2026-12-01T00:00:00.123456Z");
    expect(Time.parse("2026-12-01T00:00:00.0001Z")).toBe("2026-12-01T00:00:00.0001Z");
    expect(Time.parse("2026-12-01T00:00:00.100000000Z")).toBe("2026-12-01T00:00:00.100Z");
    expect(Time.parse("2026-12-01T00:00:00.123456789000Z")).toBe("2026-12-01T00:00:00.123456789Z");
    expect(Time.parse("2026-12-01T01:00:00.000001+01:00")).toBe("2026-12-01T00:00:00.000001Z");
  });

  it("compares equal instants equal, whatever their digits: a live .000000Z is no change", () => {
    expect(Time.equals("2026-12-01T00:00:00.000000Z", "2026-12-01T00:00:00Z")).toBe(true);
    expect(Time.equals("2026-12-01T00:00:00.500000Z", "2026-12-01T00:00:00.5Z")).toBe(true);
    expect(Time.compare("2026-12-01T00:00:00.0000001Z", "2026-12-01T00:00:00.0000002Z")).toBe(-1);
    expect(Time.compare("2026-12-01T00:00:00.999999999Z", "2026-12-01T00:00:01Z")).toBe(-1);
  });

  it("refuses precision it cannot keep: a non-zero digit after the ninth", () => {
    expect(() => Time.parse("2026-12-01T00:00:00.0000000001Z")).toThrow(/nanosecond/);
  });

  it("orders any two times with fractions as their nanoseconds do", () => {
    const fraction = fc.stringMatching(/^[0-9]{1,9}$/);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800 }), fraction, fraction, (seconds, fa, fb) => {
        const base = Time.fromMillis(seconds * 1000).replace("Z", "");
        const a = `${base}.${fa}Z`;
        const b = `${base}.${fb}Z`;
        const nanos = (f: string) => BigInt(f.padEnd(9, "0"));
        const expected = nanos(fa) < nanos(fb) ? -1 : nanos(fa) > nanos(fb) ? 1 : 0;
        expect(Time.compare(a, b)).toBe(expected);
        expect(Time.parse(Time.parse(a))).toBe(Time.parse(a));
        expect(Time.equals(a, Time.parse(a))).toBe(true);
      }),
    );
  });

  it("remembers what it read, and refuses a bad text every time it is asked", () => {
    expect(Time.parse("2026-12-01T01:00:00+01:00")).toBe("2026-12-01T00:00:00Z");
    expect(Time.toMillis("2026-12-01T01:00:00+01:00")).toBe(Date.UTC(2026, 11, 1));
    expect(Time.equals("2026-12-01T01:00:00+01:00", "2026-12-01T00:00:00Z")).toBe(true);
    expect(() => Time.parse("2026-02-30T00:00:00Z")).toThrow(TimeError);
    expect(() => Time.toMillis("2026-02-30T00:00:00Z")).toThrow(/day 30 does not exist/);
  });

  it("formats durations the way a plan summary says them", () => {
    expect(Time.formatDuration(252_000)).toBe("4m12s");
    expect(Time.formatDuration(45_400)).toBe("45s");
    expect(Time.formatDuration(3_900_000)).toBe("1h05m");
  });

  it("parse is idempotent and round-trips any instant", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), (ms) => {
        const text = Time.fromMillis(ms);
        expect(Time.parse(text)).toBe(text);
        expect(Time.toMillis(text)).toBe(ms);
      }),
    );
  });
});
