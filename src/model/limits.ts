/** Rate-limit windows (spec, "Limits"; G10: sliding 60-second windows), written `100/60s`. */
export interface RateWindow {
  /** Requests allowed inside one window. */
  limit: number;
  /** Window length in milliseconds. */
  windowMs: number;
}

export interface RateLimits {
  get: RateWindow;
  write: RateWindow;
  session: RateWindow;
}

export type RequestClass = keyof RateLimits;

export const PUBLISHED_RATE_LIMITS: RateLimits = {
  get: { limit: 100, windowMs: 60_000 },
  write: { limit: 10, windowMs: 60_000 },
  session: { limit: 10, windowMs: 60_000 },
};

export class RateLimitSyntaxError extends Error {
  override readonly name = "RateLimitSyntaxError";
  readonly code = "RATE_LIMIT_INVALID";
}

const WINDOW = /^([1-9][0-9]*)\/([1-9][0-9]*)(ms|s|m)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000 } as const;

/** Parses `10/60s` (also `ms` and `m` units). */
function parseWindow(text: string): RateWindow {
  const match = WINDOW.exec(text.trim());
  if (!match) {
    throw new RateLimitSyntaxError(`"${text}" is not a rate window: write requests/duration, like 10/60s`);
  }
  const [, limit = "", amount = "", unit = "s"] = match;
  return { limit: Number(limit), windowMs: Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS] };
}

function formatWindow(window: RateWindow): string {
  return window.windowMs % 1000 === 0
    ? `${window.limit}/${window.windowMs / 1000}s`
    : `${window.limit}/${window.windowMs}ms`;
}

/** Parses `get=100/60s,write=10/60s,session=10/60s` (any subset; the rest keep defaults). */
function parseList(text: string, defaults: RateLimits = PUBLISHED_RATE_LIMITS): RateLimits {
  const result: RateLimits = { ...defaults };
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [name = "", value = ""] = part.split("=");
    if (name !== "get" && name !== "write" && name !== "session") {
      throw new RateLimitSyntaxError(`unknown rate class "${name}": use get, write or session`);
    }
    result[name] = parseWindow(value);
  }
  return result;
}

function formatList(limits: RateLimits): string {
  return `get=${formatWindow(limits.get)},write=${formatWindow(limits.write)},session=${formatWindow(limits.session)}`;
}

export const RateLimit = { parseWindow, formatWindow, parseList, formatList };
