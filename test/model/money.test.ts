import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Money, MoneyError } from "../../src/model/money.js";
import { usdParts } from "../helpers/money.js";

describe("Money.parse", () => {
  it("reads an amount with a currency into units and nanos", () => {
    expect(Money.parse("12.50 USD")).toEqual(usdParts("12", 500_000_000));
    expect(Money.parse("4 EUR")).toEqual({ currency_code: "EUR", units: "4", nanos: 0 });
    expect(Money.parse("0.000000001 USD")).toEqual(usdParts("0", 1));
  });

  it("keeps the sign on both units and nanos for negative amounts", () => {
    expect(Money.parse("-1.25 USD")).toEqual(usdParts("-1", -250_000_000));
    expect(Money.parse("-0.5 USD")).toEqual(usdParts("0", -500_000_000));
  });

  it("is exact where a binary float is not", () => {
    const sum = Money.add(Money.parse("0.1 USD"), Money.parse("0.2 USD"));
    expect(Money.equals(sum, Money.parse("0.3 USD"))).toBe(true);
  });

  it("refuses a bare number and says how to write it", () => {
    expect(() => Money.parse("12.5")).toThrow('money needs a currency: write "12.5 USD"');
  });

  it("refuses more than nine decimals rather than rounding", () => {
    expect(() => Money.parse("1.0000000001 USD")).toThrow(/more than 9 decimals/);
  });

  it("refuses a lower-case currency code with the fix", () => {
    expect(() => Money.parse("1 usd")).toThrow('write "USD"');
  });

  it("refuses garbage with a MoneyError", () => {
    expect(() => Money.parse("twelve dollars")).toThrow(MoneyError);
  });
});

describe("Money arithmetic and formatting", () => {
  it("adds, subtracts and compares within one currency", () => {
    expect(Money.add(usdParts("1", 900_000_000), usdParts("0", 200_000_000))).toEqual(
      usdParts("2", 100_000_000),
    );
    expect(Money.subtract(usdParts("1"), usdParts("2", 500_000_000))).toEqual(usdParts("-1", -500_000_000));
    expect(Money.compare(usdParts("1"), usdParts("0", 999_999_999))).toBe(1);
  });

  it("refuses to mix currencies", () => {
    expect(() => Money.add(usdParts("1"), { currency_code: "EUR", units: "1", nanos: 0 })).toThrow(
      /USD with EUR/,
    );
  });

  it("formats exactly in at least the currency's minor units, and groups thousands for summaries", () => {
    expect(Money.format(usdParts("12", 500_000_000))).toBe("12.50 USD");
    expect(Money.format(usdParts("3", 141_592_653))).toBe("3.141592653 USD");
    expect(Money.formatGrouped(usdParts("2500"), { signed: true })).toBe("+2,500.00 USD");
    expect(Money.formatGrouped(usdParts("-1234567", -10_000_000))).toBe("-1,234,567.01 USD");
    // JPY has no minor unit, KWD thousandths (ISO 4217): never two decimals whatever the currency.
    expect(Money.format(Money.parse("5000000 JPY"))).toBe("5000000 JPY");
    expect(Money.format(Money.parse("1000 KWD"))).toBe("1000.000 KWD");
    // More decimals only where the amount has them: half a yen, a fils and a half.
    expect(Money.format(Money.parse("2.5 JPY"))).toBe("2.5 JPY");
    expect(Money.format(Money.parse("0.0015 KWD"))).toBe("0.0015 KWD");
    expect(Money.formatGrouped(Money.parse("1234567 JPY"))).toBe("1,234,567 JPY");
    expect(Money.formatGrouped(Money.parse("1234.5 KWD"))).toBe("1,234.500 KWD");
  });

  it("tells wire money from numbers, strings and other objects, nanos optional (G12)", () => {
    expect(Money.isWire(usdParts("12", 500_000_000))).toBe(true);
    expect(Money.isWire({ currency_code: "USD", units: "12" })).toBe(true);
    expect(Money.isWire(12.5)).toBe(false);
    expect(Money.isWire("12.50 USD")).toBe(false);
    expect(Money.isWire(null)).toBe(false);
    expect(Money.isWire({ strategy: "even" })).toBe(false);
    expect(Money.isWire({ currency_code: "USD", units: 12 })).toBe(false);
  });

  it("reads a field value as normalized money only when it is wire money", () => {
    expect(Money.fromValue({ currency_code: "USD", units: "12" })).toEqual(usdParts("12", 0));
    expect(Money.fromValue(12.5)).toBeUndefined();
    expect(Money.fromValue({ strategy: "even" })).toBeUndefined();
    expect(() => Money.fromValue({ currency_code: "USD", units: "1", nanos: -5 })).toThrow(/same sign/);
  });

  it("validates the wire shape with G8's sign rule", () => {
    expect(Money.validate(usdParts("1", -5))).toMatch(/same sign/);
    expect(Money.validate({ currency_code: "usd", units: "1", nanos: 0 })).toMatch(/three upper-case/);
    expect(Money.validate(usdParts("1.5"))).toMatch(/integer string/);
    expect(Money.validate(usdParts("1", 1_000_000_000))).toMatch(/nanos/);
    expect(Money.fromWire({ currency_code: "USD", units: "7" })).toEqual(usdParts("7"));
  });
});

const moneyArb = fc
  .record({
    nanos: fc.bigInt({ min: -(10n ** 21n), max: 10n ** 21n }),
    currency: fc.constantFrom("USD", "EUR", "GBP", "JPY", "KWD"),
  })
  .map(({ nanos, currency }) => Money.fromNanos(nanos, currency));

describe("Money properties", () => {
  it("format then parse returns the same value", () => {
    fc.assert(
      fc.property(moneyArb, (m) => {
        expect(Money.parse(Money.format(m))).toEqual(m);
      }),
    );
  });

  it("parse never accepts a text it cannot represent exactly", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^-?[0-9]{1,15}\.[0-9]{1,12} [A-Z]{3}$/), (text) => {
        let parsed: Money;
        try {
          parsed = Money.parse(text);
        } catch (error) {
          expect(error).toBeInstanceOf(MoneyError);
          return;
        }
        // Accepted: the value must be the text's exact decimal value.
        const [amount = ""] = text.split(" ");
        const [whole = "", fraction = ""] = amount.replace("-", "").split(".");
        const expected =
          (BigInt(whole) * 10n ** 9n + BigInt(fraction.padEnd(9, "0"))) * (amount.startsWith("-") ? -1n : 1n);
        expect(fraction.length).toBeLessThanOrEqual(9);
        expect(Money.toNanos(parsed)).toBe(expected);
      }),
    );
  });

  it("addition and subtraction are inverse and exact", () => {
    fc.assert(
      fc.property(moneyArb, moneyArb, (a, b) => {
        const b2 = { ...b, currency_code: a.currency_code };
        expect(Money.subtract(Money.add(a, b2), b2)).toEqual(a);
        expect(Money.validate(Money.add(a, b2))).toBeUndefined();
      }),
    );
  });
});

describe("Money.formatAmount (text and Markdown amounts)", () => {
  const m = (text: string) => Money.parse(text);

  it("shows the currency's minor units (ISO 4217): cents for USD, none for JPY, thousandths for KWD", () => {
    // 1,646.69895 USD -> 1,646.70 (the 0.00895 rounds up to the cent)
    expect(Money.formatAmount(m("1646.69895 USD"))).toBe("1,646.70 USD");
    // 26,325 USD shows its cents, grouped: never "26325.00 USD"
    expect(Money.formatAmount(m("26325 USD"))).toBe("26,325.00 USD");
    // 1,234.6 JPY -> 1,235 (yen has no minor unit)
    expect(Money.formatAmount(m("1234.6 JPY"))).toBe("1,235 JPY");
    // 1.23456 KWD -> 1.235 (three decimals; the 6 rounds the 4 up)
    expect(Money.formatAmount(m("1.23456 KWD"))).toBe("1.235 KWD");
    // an unlisted currency has 2
    expect(Money.formatAmount(m("5093.55075 XYZ"))).toBe("5,093.55 XYZ");
  });

  it("rounds half to even, exactly at the half, on both signs", () => {
    // 0.125 -> 0.12 (2 is even); 0.135 -> 0.14 (3 is odd, rounds to 4)
    expect(Money.formatAmount(m("0.125 USD"))).toBe("0.12 USD");
    expect(Money.formatAmount(m("0.135 USD"))).toBe("0.14 USD");
    // 0.1250000001 is above the half: 0.13
    expect(Money.formatAmount(m("0.125000001 USD"))).toBe("0.13 USD");
    expect(Money.formatAmount(m("-0.125 USD"))).toBe("-0.12 USD");
    expect(Money.formatAmount(m("-0.135 USD"))).toBe("-0.14 USD");
    // 2.5 JPY -> 2, 3.5 JPY -> 4
    expect(Money.formatAmount(m("2.5 JPY"))).toBe("2 JPY");
    expect(Money.formatAmount(m("3.5 JPY"))).toBe("4 JPY");
  });

  it("signs a change when asked, and never signs zero", () => {
    // 9,858.0105 -> +9,858.01
    expect(Money.formatAmount(m("9858.0105 USD"), { signed: true })).toBe("+9,858.01 USD");
    expect(Money.formatAmount(m("-4500 USD"), { signed: true })).toBe("-4,500.00 USD");
    // 0.004 rounds to zero: no sign
    expect(Money.formatAmount(m("0.004 USD"), { signed: true })).toBe("0.00 USD");
  });

  it("rounds within half a minor unit, to a multiple of it", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), (nanos) => {
        const value = Money.fromNanos(nanos, "USD");
        const rounded = Money.toNanos(Money.roundToMinor(value));
        const diff = rounded - nanos;
        return rounded % 10_000_000n === 0n && diff <= 5_000_000n && diff >= -5_000_000n;
      }),
    );
  });
});
