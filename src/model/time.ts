/**
 * Instants: ISO 8601 with `Z` or an offset, held as canonical UTC strings (a fraction only when
 * non-zero, up to nine digits kept exactly: RFC 3339, G14), so equal instants are equal strings.
 * Readings go through one bounded cache: 10,000 campaigns share a few flights, and re-parsing
 * cost more than the rest; a refused text is never remembered.
 */
export class TimeError extends Error {
  override readonly name = "TimeError";
  readonly code = "TIME_INVALID";
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

/** `Date.UTC`, except that years 0 to 99 stay those years (it reads them as 1900 to 1999). */
function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, day); // all three at once: a day 0 or 31 rolls over in `year`
  date.setUTCHours(hour, minute, second, ms);
  return date.getTime();
}

function daysInMonth(year: number, month: number): number {
  return new Date(utc(year, month, 0)).getUTCDate();
}

/** A time text read: milliseconds since the epoch, and the nanoseconds within that millisecond. */
interface Reading {
  millis: number;
  /** 0 to 999,999. */
  subMillis: number;
}

/** An ISO 8601 date-time with a zone, read exactly to the nanosecond, or a TimeError. */
function readInstant(text: string): Reading {
  const match = ISO.exec(text);
  if (!match) {
    throw new TimeError(
      `"${text}" is not an ISO 8601 date-time with a zone: write it like 2026-12-01T00:00:00Z`,
    );
  }
  const [, y, mo, d, h, mi, s, fraction = "", zone = "Z"] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12) throw new TimeError(`"${text}": month ${mo} does not exist`);
  if (day < 1 || day > daysInMonth(year, month)) throw new TimeError(`"${text}": day ${d} does not exist`);
  if (hour > 23 || minute > 59 || second > 59) throw new TimeError(`"${text}": time of day out of range`);
  if (/[1-9]/.test(fraction.slice(9))) {
    throw new TimeError(`"${text}": times are exact to the nanosecond; drop the digits after the ninth`);
  }
  const nanos = fraction.slice(0, 9).padEnd(9, "0");
  const millis = Number(nanos.slice(0, 3));
  let offsetMinutes = 0;
  if (zone !== "Z" && zone !== "z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    const oh = Number(zone.slice(1, 3));
    const om = Number(zone.slice(4, 6));
    if (oh > 23 || om > 59) throw new TimeError(`"${text}": offset ${zone} out of range`);
    offsetMinutes = sign * (oh * 60 + om);
  }
  return {
    millis: utc(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000,
    subMillis: Number(nanos.slice(3)),
  };
}

/** Canonical UTC text of an instant. */
function fromMillis(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith(".000Z") ? `${iso.slice(0, -5)}Z` : iso;
}

/** Canonical UTC text of an instant with nanoseconds: the fraction's trailing zeros dropped. */
function canonicalOf({ millis, subMillis }: Reading): string {
  if (subMillis === 0) return fromMillis(millis);
  const iso = new Date(millis).toISOString(); // ...SS.mmmZ
  const fraction = `${iso.slice(-4, -1)}${String(subMillis).padStart(6, "0")}`.replace(/0+$/, "");
  return `${iso.slice(0, -5)}.${fraction}Z`;
}

/** A time text read: its canonical UTC text and its instant. */
interface Instant extends Reading {
  canonical: string;
}

const MAX_REMEMBERED = 10_000;
const remembered = new Map<string, Instant>();

function instant(text: string): Instant {
  let known = remembered.get(text);
  if (known === undefined) {
    const reading = readInstant(text);
    known = { ...reading, canonical: canonicalOf(reading) };
    if (remembered.size >= MAX_REMEMBERED) remembered.clear();
    remembered.set(text, known);
  }
  return known;
}

/** Parses any accepted form and returns the canonical UTC string, or a TimeError. */
function parse(text: string): string {
  return instant(text).canonical;
}

/** Whole milliseconds since the epoch, or a TimeError; to order two times, `compare` sees every digit. */
function toMillis(text: string): number {
  return instant(text).millis;
}

/** The one ordering of two instants, exact to the nanosecond: -1, 0 or 1. */
function compare(a: string, b: string): number {
  const x = instant(a);
  const y = instant(b);
  return Math.sign(x.millis - y.millis || x.subMillis - y.subMillis);
}

/** Whether two texts name the same instant, whatever their offsets. */
function equals(a: string, b: string): boolean {
  return parse(a) === parse(b);
}

/** `1h 05m`, `4m12s`, `45s`: durations as people read them in a plan summary. */
function formatDuration(ms: number): string {
  const totalSeconds = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h${String(minutes).padStart(2, "0")}m`;
  if (minutes > 0) return `${minutes}m${String(seconds).padStart(2, "0")}s`;
  return `${seconds}s`;
}

export const Time = { parse, toMillis, fromMillis, compare, equals, formatDuration };
