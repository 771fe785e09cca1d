/**
 * An exact rational (bigint over a positive bigint): every threshold is compared with one
 * (docs/status.md, "Rounding"), so -10% is never -9.999999999999998; rounded once, afterwards.
 */
export interface Ratio {
  readonly n: bigint;
  readonly d: bigint;
}

function integer(value: bigint | number): bigint {
  if (typeof value === "bigint") return value;
  if (!Number.isSafeInteger(value)) throw new RangeError(`${value} is not a safe integer`);
  return BigInt(value);
}

/** n / d of integers (numbers must be safe integers); d must not be zero. */
function of(n: bigint | number, d: bigint | number = 1n): Ratio {
  const num = integer(n);
  const den = integer(d);
  if (den === 0n) throw new RangeError("a ratio's denominator cannot be zero");
  return den < 0n ? { n: -num, d: -den } : { n: num, d: den };
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i;

/** A decimal text ("-10.03", "1e-7"), exactly. */
function parse(text: string): Ratio {
  const match = DECIMAL.exec(text);
  if (!match) throw new RangeError(`${text} is not a decimal number`);
  const [, sign = "", whole = "0", fraction = "", exponent = "0"] = match;
  const scale = fraction.length - Number(exponent);
  const digits = BigInt(`${sign}${whole}${fraction}`);
  return scale >= 0 ? of(digits, 10n ** BigInt(scale)) : of(digits * 10n ** BigInt(-scale));
}

/** The decimal a number is written as (a typed threshold), exactly: 10.0001 is 100001 / 10000. */
function fromDecimal(value: number): Ratio {
  if (!Number.isFinite(value)) throw new RangeError(`${value} is not a finite number`);
  return parse(String(value));
}

function add(a: Ratio, b: Ratio): Ratio {
  return of(a.n * b.d + b.n * a.d, a.d * b.d);
}

function subtract(a: Ratio, b: Ratio): Ratio {
  return of(a.n * b.d - b.n * a.d, a.d * b.d);
}

function multiply(a: Ratio, b: Ratio): Ratio {
  return of(a.n * b.n, a.d * b.d);
}

function divide(a: Ratio, b: Ratio): Ratio {
  return of(a.n * b.d, a.d * b.n);
}

/** -1, 0 or 1 as a is less than, equal to or greater than b. */
function compare(a: Ratio, b: Ratio): -1 | 0 | 1 {
  const difference = a.n * b.d - b.n * a.d;
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
}

function abs(a: Ratio): Ratio {
  return a.n < 0n ? { n: -a.n, d: a.d } : a;
}

/** The largest integer not above it. */
function floor(a: Ratio): bigint {
  const q = a.n / a.d;
  return a.n < 0n && q * a.d !== a.n ? q - 1n : q;
}

/** Rounded to `digits` decimals, half to even, in units of 10^-digits. */
function scaled(a: Ratio, digits: number): bigint {
  const numerator = abs(a).n * 10n ** BigInt(digits);
  let q = numerator / a.d;
  const r = numerator % a.d;
  if (r * 2n > a.d || (r * 2n === a.d && q % 2n === 1n)) q += 1n;
  return a.n < 0n ? -q : q;
}

/** Rounded to `digits` decimals, half to even (as `Money.roundToMinor`): "-10.03". */
function toFixed(a: Ratio, digits: number): string {
  const units = scaled(a, digits);
  const negative = units < 0n;
  const text = (negative ? -units : units).toString().padStart(digits + 1, "0");
  const whole = text.slice(0, text.length - digits);
  const fraction = digits > 0 ? `.${text.slice(text.length - digits)}` : "";
  return `${negative ? "-" : ""}${whole}${fraction}`;
}

/** The most decimals a JSON figure carries. */
export const JSON_DECIMALS = 10;
/** The most significant digits a JSON number holds digit for digit (a double's 15). */
const JSON_DIGITS = 15;

/**
 * A figure for JSON, half to even to 10 decimals, or to 15 significant digits for a long whole
 * part, so JSON writes that decimal digit for digit (1/3 is 0.3333333333).
 */
function toJson(a: Ratio): number {
  const whole = abs(a).n / a.d;
  const wholeDigits = whole === 0n ? 0 : whole.toString().length;
  const digits = Math.max(0, Math.min(JSON_DECIMALS, JSON_DIGITS - wholeDigits));
  const rounded = Number(toFixed(a, digits));
  return rounded === 0 ? 0 : rounded; // never -0
}

export const Ratio = {
  of,
  parse,
  fromDecimal,
  add,
  subtract,
  multiply,
  divide,
  compare,
  abs,
  floor,
  toFixed,
  toJson,
  zero: of(0n),
};
