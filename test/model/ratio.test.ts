/**
 * Exact rationals (src/model/ratio.ts): what every threshold is compared with, and the one
 * rounding JSON and people get. Each figure by hand.
 */
import { describe, expect, it } from "vitest";
import { shownPercent } from "../../src/model/percent.js";
import { Ratio } from "../../src/model/ratio.js";

describe("Ratio", () => {
  it("reads a number as the decimal it is written as, not the double nearest to it", () => {
    // 10.0001 is 100001 / 10000; 0.1 + 0.2 as doubles is not 0.3, as decimals it is.
    expect(Ratio.compare(Ratio.fromDecimal(10.0001), Ratio.of(100_001, 10_000))).toBe(0);
    expect(
      Ratio.compare(Ratio.add(Ratio.fromDecimal(0.1), Ratio.fromDecimal(0.2)), Ratio.fromDecimal(0.3)),
    ).toBe(0);
    expect(Ratio.compare(Ratio.fromDecimal(1e-7), Ratio.of(1, 10_000_000))).toBe(0);
    expect(Ratio.compare(Ratio.fromDecimal(1.5e21), Ratio.of(15n * 10n ** 20n))).toBe(0);
  });

  it("compares exactly where binary floats do not: 12,937.5 / 14,375 - 1 is -0.1", () => {
    // (12,937.5 / 14,375 - 1) x 100 in doubles is -9.999999999999998.
    expect((12_937.5 / 14_375 - 1) * 100).not.toBe(-10);
    const difference = Ratio.multiply(Ratio.subtract(Ratio.of(129_375, 143_750), Ratio.of(1)), Ratio.of(100));
    expect(Ratio.compare(difference, Ratio.of(-10))).toBe(0);
    expect(Ratio.toJson(difference)).toBe(-10);
  });

  it("rounds half to even, once", () => {
    expect(Ratio.toFixed(Ratio.of(125, 1000), 2)).toBe("0.12"); // 0.125: half, to the even 2
    expect(Ratio.toFixed(Ratio.of(135, 1000), 2)).toBe("0.14");
    expect(Ratio.toFixed(Ratio.of(-125, 1000), 2)).toBe("-0.12");
    expect(Ratio.toFixed(Ratio.of(-1, 1000), 2)).toBe("0.00"); // never "-0.00"
    expect(Ratio.toFixed(Ratio.of(239_891, 24), 0)).toBe("9995"); // 9,995.458: never 9,995.5 then 9,996
    expect(Ratio.floor(Ratio.of(-7, 2))).toBe(-4n);
  });

  it("writes JSON figures to 10 decimals, or 15 significant digits for a long whole part", () => {
    expect(Ratio.toJson(Ratio.of(1, 3))).toBe(0.3333333333);
    expect(Ratio.toJson(Ratio.of(16, 11))).toBe(1.4545454545);
    // 123,456,789.123456789...: 9 whole digits leave 6 decimals.
    expect(Ratio.toJson(Ratio.of(123_456_789_123_456_789n, 10n ** 9n))).toBe(123_456_789.123457);
    expect(Object.is(Ratio.toJson(Ratio.of(-1, 10n ** 12n)), 0)).toBe(true);
  });
});

describe("shownPercent", () => {
  const ten = Ratio.of(10);
  it("shows a tenth, and the digits that keep a figure off its threshold", () => {
    expect(shownPercent(Ratio.of(-10), { threshold: ten })).toBe("-10.0%");
    expect(shownPercent(Ratio.fromDecimal(-10.0304), { threshold: ten })).toBe("-10.03%");
    expect(shownPercent(Ratio.fromDecimal(10.0001), { threshold: ten })).toBe("+10.0001%");
    expect(shownPercent(Ratio.fromDecimal(-34.8), { threshold: ten })).toBe("-34.8%");
    expect(shownPercent(Ratio.of(60), { threshold: Ratio.of(50), digits: 0 })).toBe("+60%");
    expect(shownPercent(Ratio.fromDecimal(13.6), { signed: false })).toBe("13.6%");
  });
});
