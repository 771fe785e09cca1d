/** Stage 3 for `connection:`: the account, the API origin (G13), environment, rate limits and dialect. */
import type { AccountSettings, ConnectionSettings } from "../model/desired.js";
import { PUBLISHED_RATE_LIMITS, RateLimit, type RateLimits } from "../model/limits.js";
import type { Environment } from "../model/wire.js";
import { normalizeDialect } from "./dialect.js";
import { originProblem } from "./origin-problem.js";
import { childPath } from "./path-text.js";
import type { Places } from "./places.js";
import { isMap, type Raw } from "./raw-values.js";

export function normalizeConnection(raw: Raw, at: string, places: Places): ConnectionSettings {
  const settings: ConnectionSettings = {};
  const account = accountOf(raw, at, places);
  if (account !== undefined) settings.account = account;
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
  // A path is read once every file is (load.ts); `dialect:` with only comments is the defaults.
  if (isMap(raw.dialect) || raw.dialect === null) {
    const dialect = normalizeDialect(raw.dialect ?? {}, childPath(at, "dialect"), places);
    if (dialect !== undefined) settings.dialect = dialect;
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

const VARIABLE_KEYS = ["api_origin_from", "email_from", "password_from"] as const;

/** What each `*_from` name ends with after the account's stem. */
const VARIABLE_SUFFIXES = {
  api_origin_from: "_API_ORIGIN",
  email_from: "_EMAIL",
  password_from: "_PASSWORD",
};

/**
 * The three names share one stem (DOOHCTL_X_API_ORIGIN, _EMAIL, _PASSWORD), as the CI holds them:
 * a pull request may choose its account, never send B's password to A's origin.
 */
function oneStem(raw: Raw): boolean {
  const stems = VARIABLE_KEYS.map((key) => {
    const name = raw[key] as string;
    const suffix = VARIABLE_SUFFIXES[key];
    return name.endsWith(suffix) ? name.slice(0, -suffix.length) : undefined;
  });
  return stems[0] !== undefined && stems[0].length > 0 && stems.every((stem) => stem === stems[0]);
}

/**
 * `account` with its three variables' names, all or none (docs/safety.md, Credentials): a
 * missing one would fall back to nothing, a `*_from` without `account` be read by no one.
 */
function accountOf(raw: Raw, at: string, places: Places): AccountSettings | undefined {
  const named = VARIABLE_KEYS.filter((key) => raw[key] !== undefined);
  if (raw.account === undefined) {
    for (const key of named) {
      places.issue(
        { parent: raw, key, path: childPath(at, key) },
        "ACCOUNT_INCOMPLETE",
        `${key} is only read for an account: add connection.account (its name, like northwind-eu), or remove ${key} and use DOOHCTL_API_ORIGIN, DOOHCTL_EMAIL and DOOHCTL_PASSWORD`,
      );
    }
    return undefined;
  }
  const missing = VARIABLE_KEYS.filter((key) => raw[key] === undefined);
  if (missing.length > 0) {
    places.issue(
      { parent: raw, key: "account", path: childPath(at, "account") },
      "ACCOUNT_INCOMPLETE",
      `account ${String(raw.account)} needs ${missing.join(", ")}: the names of the environment variables holding its origin and credentials (like DOOHCTL_NORTHWIND_EU_PASSWORD), which are read for this account and no other`,
    );
    return undefined;
  }
  if (typeof raw.account !== "string" || named.some((key) => typeof raw[key] !== "string")) return undefined;
  if (!oneStem(raw)) {
    places.issue(
      { parent: raw, key: "api_origin_from", path: childPath(at, "api_origin_from") },
      "ACCOUNT_VARIABLE_INVALID",
      `account ${raw.account}: its three variables must share one stem, named <STEM>_API_ORIGIN, <STEM>_EMAIL and <STEM>_PASSWORD (like DOOHCTL_NORTHWIND_EU_API_ORIGIN, DOOHCTL_NORTHWIND_EU_EMAIL, DOOHCTL_NORTHWIND_EU_PASSWORD), so a config can never pair one account's credentials with another account's origin (docs/safety.md, Credentials)`,
    );
    return undefined;
  }
  return {
    name: raw.account,
    apiOriginFrom: raw.api_origin_from as string,
    emailFrom: raw.email_from as string,
    passwordFrom: raw.password_from as string,
  };
}
