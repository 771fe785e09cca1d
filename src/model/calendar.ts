/**
 * A world written for one day, placed at another (docs/emulator.md, "A seed placed at today"):
 * every date moves by the whole days from its `today` to the day it runs, so each flight keeps
 * its state, length and time of day.
 */

const DAY_MS = 86_400_000;

/** A calendar date, `YYYY-MM-DD`: the form of a seed's `today`. */
export const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A date, alone or as the start of a date-time, wherever it stands in a text. */
const DATE_IN_TEXT = /\b(\d{4})-(\d{2})-(\d{2})(?=T\d{2}:\d{2}|(?![\w-]))/g;

/** The date-times and dates of JSON values: a whole string, nothing around it. */
const WHOLE_DATE = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2}))?$/;

/** The day's midnight (UTC, ms), or undefined for a text that is no calendar date (2026-02-30). */
function dayOf(year: string, month: string, day: string): number | undefined {
  const ms = Date.UTC(Number(year), Number(month) - 1, Number(day));
  const back = new Date(ms);
  const same =
    back.getUTCFullYear() === Number(year) &&
    back.getUTCMonth() === Number(month) - 1 &&
    back.getUTCDate() === Number(day);
  return same ? ms : undefined;
}

/** Whether `text` is a real calendar date in `YYYY-MM-DD`. */
export function isCalendarDate(text: string): boolean {
  const m = DATE_PATTERN.exec(text);
  return m !== null && dayOf(m[1]!, m[2]!, m[3]!) !== undefined;
}

/** Whole days from the UTC day `writtenFor` (`YYYY-MM-DD`) to the UTC day of `now` (clock ms). */
export function daysToPlace(writtenFor: string, now: number): number {
  const m = DATE_PATTERN.exec(writtenFor);
  const from = m ? dayOf(m[1]!, m[2]!, m[3]!) : undefined;
  if (from === undefined) throw new RangeError(`"${writtenFor}" is not a calendar date (YYYY-MM-DD)`);
  return Math.floor(now / DAY_MS) - from / DAY_MS;
}

function movedDate(year: string, month: string, day: string, days: number): string | undefined {
  const ms = dayOf(year, month, day);
  return ms === undefined ? undefined : new Date(ms + days * DAY_MS).toISOString().slice(0, 10);
}

/**
 * Every date in a text moved by `days`, alone or as a date-time's date (the rest of it, time of
 * day and offset, kept as written): a YAML config written for the same day as a seed.
 */
export function placeText(text: string, days: number): string {
  if (days === 0) return text;
  return text.replace(
    DATE_IN_TEXT,
    (match, y: string, m: string, d: string) => movedDate(y, m, d, days) ?? match,
  );
}

/** A JSON value with every string that is a date or a date-time moved by `days`; nothing else changes. */
export function placeValue<T>(value: T, days: number): T {
  if (days === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") {
      const m = WHOLE_DATE.exec(v);
      const date = m ? movedDate(m[1]!, m[2]!, m[3]!, days) : undefined;
      return date === undefined ? v : date + v.slice(10);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item)]));
    }
    return v;
  };
  return walk(value) as T;
}

/** `+85 days`, `-18 days`, `0 days`: a placement as the banner and the demo say it. */
export function formatDays(days: number): string {
  const sign = days > 0 ? "+" : "";
  return `${sign}${days} day${Math.abs(days) === 1 ? "" : "s"}`;
}
