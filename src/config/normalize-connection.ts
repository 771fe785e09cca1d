/** Stage 3 for `connection:`: the API origin (G13), the environment and the rate limits. */
import type { ConnectionSettings } from "../model/desired.js";
import { PUBLISHED_RATE_LIMITS, RateLimit, type RateLimits } from "../model/limits.js";
import type { Environment } from "../model/wire.js";
import { originProblem } from "./origin-problem.js";
import { childPath } from "./path-text.js";
import type { Places } from "./places.js";
import type { Raw } from "./raw-values.js";

export function normalizeConnection(raw: Raw, at: string, places: Places): ConnectionSettings {
  const settings: ConnectionSettings = {};
  if (typeof raw.api_origin === "string") {
    const origin = apiOrigin(raw.api_origin, raw, childPath(at, "api_origin"), places);
    if (origin !== undefined) settings.apiOrigin = origin;
  }
  if (raw.environment !== undefined) settings.environment = raw.environment as Environment;
  if (raw.rate_limits !== undefined) {
    const limits: RateLimits = { ...PUBLISHED_RATE_LIMITS };
    const declared = raw.rate_limits as Partial<Record<keyof RateLimits, string>>;
    for (const name of ["get", "write", "session"] as const) {
      const text = declared[name];
      if (text === undefined) continue;
      const path = childPath(childPath(at, "rate_limits"), name);
      const window = places.parsed({ parent: declared, key: name, path }, "RATE_LIMIT_INVALID", () =>
        RateLimit.parseWindow(text),
      );
      if (window !== undefined) limits[name] = window;
    }
    settings.rateLimits = limits;
  }
  return settings;
}

/** An origin only: scheme and host. G13: plain http only to a loopback address. */
function apiOrigin(text: string, parent: Raw, path: string, places: Places): string | undefined {
  const problem = originProblem(text);
  if (problem === undefined) return new URL(text).origin;
  places.issue({ parent, key: "api_origin", path }, "ORIGIN_INVALID", problem);
  return undefined;
}
