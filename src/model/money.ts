/** Money in the API's shape (spec, "Money"): `units` an integer string, `nanos`; exact bigint arithmetic. */
export interface Money {
  currency_code: string;
  units: string;
  nanos: number;
}

export class MoneyError extends Error {
  override readonly name = "MoneyError";
  readonly code = "MONEY_INVALID";
}

const NANOS_PER_UNIT = 1_000_000_000n;
const MAX_NANOS = 999_999_999;
const CURRENCY = /^[A-Z]{3}$/;
const UNITS = /^-?(0|[1-9][0-9]*)$/;
const TEXT = /^(-?)([0-9]+)(?:\.([0-9]{1,9}))?\s+([A-Za-z]{3})$/;

/** Parses `"12.50 USD"` (up to 9 decimals, a space, an ISO 4217 code). Never rounds. */
function parse(text: string): Money {
  const trimmed = text.trim();
  const match = TEXT.exec(trimmed);
  if (!match) {
    if (/^-?[0-9]+(\.[0-9]+)?$/.test(trimmed)) {
      throw new MoneyError(`money needs a currency: write "${trimmed} USD" (amount, space, ISO 4217 code)`);
    }
    if (/^-?[0-9]+\.[0-9]{10,}\s+[A-Za-z]{3}$/.test(trimmed)) {
      throw new MoneyError(`"${trimmed}" has more than 9 decimals; money is exact to the nano (1e-9)`);
    }
    throw new MoneyError(`"${text}" is not money: write an amount and a currency, like "12.50 USD"`);
  }
  const [, sign = "", whole = "0", fraction = "", currency = ""] = match;
  if (currency !== currency.toUpperCase()) {
    throw new MoneyError(`currency "${currency}" must be upper case: write "${currency.toUpperCase()}"`);
  }
  const nanos = BigInt(fraction.padEnd(9, "0"));
  const total = (BigInt(whole) * NANOS_PER_UNIT + nanos) * (sign === "-" ? -1n : 1n);
  return fromNanos(total, currency);
}

/** Checks the wire shape and G8's rules on it (integer string units, nanos range and sign). */
function validate(value: Money): string | undefined {
  if (!CURRENCY.test(value.currency_code)) return "currency_code must be three upper-case letters (ISO 4217)";
  if (typeof value.units !== "string" || !UNITS.test(value.units)) return "units must be an integer string";
  if (!Number.isInteger(value.nanos) || Math.abs(value.nanos) > MAX_NANOS) {
    return "nanos must be an integer between -999999999 and 999999999";
  }
  const units = BigInt(value.units);
  if ((units > 0n && value.nanos < 0) || (units < 0n && value.nanos > 0)) {
    return "nanos must have the same sign as units";
  }
  return undefined;
}

/** Money as the API may send it: `nanos` may be omitted (G12). */
export interface WireMoney {
  currency_code: string;
  units: string;
  nanos?: number;
}

/** Whether a value has money's wire shape (`nanos` optional, G12); `validate` checks the rules. */
function isWire(value: unknown): value is WireMoney {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const money = value as Record<string, unknown>;
  return (
    typeof money.currency_code === "string" &&
    typeof money.units === "string" &&
    (money.nanos === undefined || Number.isInteger(money.nanos))
  );
}

/** Accepts the wire form with `nanos` optional (G12) and returns the canonical form. */
function fromWire(value: WireMoney): Money {
  const money = { currency_code: value.currency_code, units: value.units, nanos: value.nanos ?? 0 };
  const problem = validate(money);
  if (problem) throw new MoneyError(problem);
  return fromNanos(toNanos(money), money.currency_code);
}

/** A field value, snapshot or answer as Money when it is wire money (normalized), else undefined. */
function fromValue(value: unknown): Money | undefined {
  return isWire(value) ? fromWire(value) : undefined;
}

function toNanos(value: Money): bigint {
  return BigInt(value.units) * NANOS_PER_UNIT + BigInt(value.nanos);
}

function fromNanos(total: bigint, currency: string): Money {
  const units = total / NANOS_PER_UNIT; // truncates toward zero, so units and nanos share a sign
  const nanos = Number(total % NANOS_PER_UNIT);
  return { currency_code: currency, units: units.toString(), nanos: nanos === 0 ? 0 : nanos };
}

function sameCurrency(a: Money, b: Money): void {
  if (a.currency_code !== b.currency_code) {
    throw new MoneyError(`cannot combine ${a.currency_code} with ${b.currency_code}`);
  }
}

function add(a: Money, b: Money): Money {
  sameCurrency(a, b);
  return fromNanos(toNanos(a) + toNanos(b), a.currency_code);
}

function subtract(a: Money, b: Money): Money {
  sameCurrency(a, b);
  return fromNanos(toNanos(a) - toNanos(b), a.currency_code);
}

/** Orders two amounts of one currency: negative, zero or positive. */
function compare(a: Money, b: Money): number {
  sameCurrency(a, b);
  const d = toNanos(a) - toNanos(b);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

function equals(a: Money, b: Money): boolean {
  return a.currency_code === b.currency_code && toNanos(a) === toNanos(b);
}

/** `"12.50 USD"`, `"1000.000 KWD"`, `"0.0625 USD"`: exact, at least the minor units; parses back the same. */
function format(value: Money): string {
  const total = toNanos(value);
  const negative = total < 0n;
  const abs = negative ? -total : total;
  const whole = (abs / NANOS_PER_UNIT).toString();
  const fraction = (abs % NANOS_PER_UNIT)
    .toString()
    .padStart(9, "0")
    .replace(/0+$/, "")
    .padEnd(minorUnits(value.currency_code), "0");
  return `${negative ? "-" : ""}${whole}${fraction.length > 0 ? `.${fraction}` : ""} ${value.currency_code}`;
}

/** Like `format`, with thousands separators, for summaries ("+2,500.00 USD", "1,235 JPY"). */
function formatGrouped(value: Money, options: { signed?: boolean } = {}): string {
  const text = format(value);
  const [amount = "", currency = ""] = text.split(" ");
  const negative = amount.startsWith("-");
  const [whole = "", fraction] = amount.replace("-", "").split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const sign = negative ? "-" : options.signed ? "+" : "";
  return `${sign}${grouped}${fraction !== undefined ? `.${fraction}` : ""} ${currency}`;
}

/** ISO 4217 minor units (decimals of the smallest unit) where not 2, as most are. */
const MINOR_UNITS: Readonly<Record<string, number>> = {
  // none
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  // thousandths
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  // ten-thousandths
  CLF: 4,
  UYW: 4,
};

/** The decimal places of `currency`'s minor unit (ISO 4217): 2 for USD, 0 for JPY, 3 for KWD. */
function minorUnits(currency: string): number {
  return MINOR_UNITS[currency] ?? 2;
}

/** Rounds to the minor unit, half to even (no drift over many amounts): 0.125 USD is 0.12. */
function roundToMinor(value: Money): Money {
  const step = 10n ** BigInt(9 - minorUnits(value.currency_code));
  const total = toNanos(value);
  const abs = total < 0n ? -total : total;
  let q = abs / step;
  const r = abs % step;
  if (r * 2n > step || (r * 2n === step && q % 2n === 1n)) q += 1n;
  return fromNanos((total < 0n ? -q : q) * step, value.currency_code);
}

/** An amount for people, rounded to the minor unit and grouped: "11,504.71 USD"; JSON keeps it exact. */
function formatAmount(value: Money, options: { signed?: boolean } = {}): string {
  const digits = minorUnits(value.currency_code);
  const total = toNanos(roundToMinor(value));
  const negative = total < 0n;
  const abs = negative ? -total : total;
  const whole = (abs / NANOS_PER_UNIT).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const fraction = (abs % NANOS_PER_UNIT).toString().padStart(9, "0").slice(0, digits);
  const sign = negative ? "-" : options.signed && total !== 0n ? "+" : "";
  return `${sign}${whole}${digits > 0 ? `.${fraction}` : ""} ${value.currency_code}`;
}

function zero(currency: string): Money {
  return { currency_code: currency, units: "0", nanos: 0 };
}

function isNegative(value: Money): boolean {
  return toNanos(value) < 0n;
}

export const Money = {
  parse,
  validate,
  isWire,
  fromWire,
  fromValue,
  toNanos,
  fromNanos,
  add,
  subtract,
  compare,
  equals,
  format,
  formatGrouped,
  formatAmount,
  minorUnits,
  roundToMinor,
  zero,
  isNegative,
};
