/**
 * Readers for the values of write bodies: each records what is wrong under the full field path
 * (`campaigns[3].cpm`) and returns the canonical value or undefined; callers go on, so one 422
 * lists every failing field (G4).
 */
import { Money } from "../model/money.js";
import { Time } from "../model/time.js";
import type { Issues } from "./errors.js";

export function fieldPath(prefix: string, key: string): string {
  return prefix === "" ? key : `${prefix}.${key}`;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function readObject(
  issues: Issues,
  field: string,
  value: unknown,
): Record<string, unknown> | undefined {
  if (isPlainObject(value)) return value;
  issues.add(field, "must be an object");
  return undefined;
}

/** The keys a body may hold (`writable`), and those it is refused as `is read-only` rather than unknown. */
export interface BodyKeys {
  writable: readonly string[];
  readOnly?: readonly string[];
}

/** G4: unknown properties and read-only ones are refused, each by name. */
export function checkKeys(
  issues: Issues,
  prefix: string,
  body: Record<string, unknown>,
  keys: BodyKeys,
): void {
  const readOnly = keys.readOnly ?? [];
  for (const key of Object.keys(body)) {
    if (keys.writable.includes(key)) continue;
    issues.add(fieldPath(prefix, key), readOnly.includes(key) ? "is read-only" : "is not a known property");
  }
}

export function requireKeys(
  issues: Issues,
  prefix: string,
  body: Record<string, unknown>,
  required: readonly string[],
): void {
  for (const key of required) {
    if (body[key] === undefined) issues.add(fieldPath(prefix, key), "is required");
  }
}

/**
 * G12, the emulator's own reading (the client's is lenient with configs): an upper-case `T`, and
 * `Z` or `+00:00` (`-00:00` is RFC 3339's "offset unknown", not UTC).
 */
const PAYLOAD_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** G12: payload times are ISO 8601 in UTC; stored canonical so equal instants read equal. */
export function readTime(issues: Issues, field: string, value: unknown): string | undefined {
  const match = typeof value === "string" ? PAYLOAD_TIME.exec(value) : null;
  if (typeof value !== "string" || !match) {
    issues.add(field, "must be an ISO 8601 date-time string like 2026-12-01T00:00:00Z");
    return undefined;
  }
  if (match[1] !== "Z" && match[1] !== "+00:00") {
    issues.add(field, "must be in UTC (a Z or +00:00 suffix)");
    return undefined;
  }
  try {
    return Time.parse(value);
  } catch {
    issues.add(field, "must be an ISO 8601 date-time like 2026-12-01T00:00:00Z");
    return undefined;
  }
}

/** G8 money rules; `nanos` may be omitted (G12); amounts are never negative. */
export function readMoney(issues: Issues, field: string, value: unknown): Money | undefined {
  const body = readObject(issues, field, value);
  if (!body) return undefined;
  const before = issues.size;
  checkKeys(issues, field, body, { writable: ["currency_code", "units", "nanos"] });
  requireKeys(issues, field, body, ["currency_code", "units"]);
  if (issues.size > before) return undefined;
  // G12: an omitted `nanos` is 0; an explicit null is not an integer and is refused.
  // "An integer carried as a string" (spec): `007` is 7; neither the spec nor G8 refuses it.
  const units = typeof body.units === "string" ? body.units.replace(/^(-?)0+(?=[0-9])/, "$1") : body.units;
  const candidate = {
    currency_code: body.currency_code,
    units,
    nanos: body.nanos === undefined ? 0 : body.nanos,
  };
  if (typeof candidate.currency_code !== "string" || typeof candidate.units !== "string") {
    issues.add(field, "currency_code and units must be strings");
    return undefined;
  }
  if (typeof candidate.nanos !== "number") {
    issues.add(fieldPath(field, "nanos"), "must be an integer between -999999999 and 999999999");
    return undefined;
  }
  const problem = Money.validate(candidate as Money);
  if (problem) {
    issues.add(field, problem);
    return undefined;
  }
  const money = Money.fromWire(candidate as Money);
  if (Money.isNegative(money)) {
    issues.add(field, "must not be negative");
    return undefined;
  }
  return money;
}

/** G8: impression budgets are non-negative integers. */
export function readCount(issues: Issues, field: string, value: unknown): number | undefined {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
  issues.add(field, "must be a non-negative integer");
  return undefined;
}

/** int32 milliseconds (spec: duration_ms is int32). */
export function readInt32(issues: Issues, field: string, value: unknown): number | undefined {
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 2_147_483_647) {
    return value;
  }
  issues.add(field, "must be an integer between 0 and 2147483647");
  return undefined;
}

export function readBoolean(issues: Issues, field: string, value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  issues.add(field, "must be true or false");
  return undefined;
}

export function readString(
  issues: Issues,
  field: string,
  value: unknown,
  bounds: { min?: number; max?: number } = {},
): string | undefined {
  const min = bounds.min ?? 0;
  const max = bounds.max ?? 2000;
  if (typeof value !== "string") {
    issues.add(field, "must be a string");
    return undefined;
  }
  if (value.length < min || value.length > max) {
    issues.add(
      field,
      min > 0 ? `must be between ${min} and ${max} characters` : `must be at most ${max} characters`,
    );
    return undefined;
  }
  if (min > 0 && value.trim() === "") {
    issues.add(field, "must not be blank");
    return undefined;
  }
  return value;
}

/** An absolute URL (spec: `pixel_url`); scheme and length are not the spec's to limit (docs/emulator.md). */
export function readUrl(issues: Issues, field: string, value: unknown): string | undefined {
  const text = readString(issues, field, value, { min: 1, max: Number.POSITIVE_INFINITY });
  if (text === undefined) return undefined;
  if (!URL.canParse(text)) {
    issues.add(field, "must be an absolute URL");
    return undefined;
  }
  return text;
}

/** A list of ids (numeric strings when `numeric`); duplicates collapse: these are sets. */
export function readIdList(
  issues: Issues,
  field: string,
  value: unknown,
  options: { nonEmpty?: boolean; numeric?: boolean; max?: number } = {},
): string[] | undefined {
  if (!Array.isArray(value)) {
    issues.add(field, "must be an array of strings");
    return undefined;
  }
  if (options.nonEmpty && value.length === 0) {
    issues.add(field, "must not be empty");
    return undefined;
  }
  if (value.length > (options.max ?? 1000)) {
    issues.add(field, `must hold at most ${options.max ?? 1000} ids`);
    return undefined;
  }
  // Ids are opaque (spec): non-empty, of any length or content; venue type ids numeric (G5).
  const pattern = options.numeric ? /^[0-9]+$/ : /^[\s\S]+$/;
  if (!value.every((id) => typeof id === "string" && pattern.test(id))) {
    issues.add(
      field,
      options.numeric ? "must hold numeric strings only" : "must hold non-empty strings only",
    );
    return undefined;
  }
  return [...new Set(value as string[])];
}

/** G2: pacing is an opaque JSON object, stored and returned as given. */
export function readOpaqueObject(
  issues: Issues,
  field: string,
  value: unknown,
): Record<string, unknown> | undefined {
  const body = readObject(issues, field, value);
  return body === undefined ? undefined : structuredClone(body);
}
