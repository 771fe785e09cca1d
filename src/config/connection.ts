/**
 * Where to connect: the config's `connection`, overridden by DOOHCTL_API_ORIGIN (an account's
 * `api_origin_from`) and DOOHCTL_ENVIRONMENT. Pure: `connectionOf` (src/cli) hands the environment.
 */
import type { AccountSettings, ConnectionSettings } from "../model/desired.js";
import { PUBLISHED_RATE_LIMITS, type RateLimits } from "../model/limits.js";
import type { Environment } from "../model/wire.js";
import { originProblem } from "./origin-problem.js";

export interface ResolvedConnection {
  apiOrigin: string;
  environment: Environment;
  rateLimits: RateLimits;
  /** `connection.account`: its name (in every state key, docs/safety.md) and its credentials' variables. */
  account?: { name: string; emailFrom: string; passwordFrom: string };
}

export class ConnectionError extends Error {
  override readonly name = "ConnectionError";
  constructor(
    readonly code: "CONNECTION_NO_ORIGIN" | "CONNECTION_INVALID" | "CONNECTION_ORIGIN_MISMATCH",
    message: string,
  ) {
    super(message);
  }
}

export function resolveConnection(
  settings: ConnectionSettings,
  env: Readonly<Record<string, string | undefined>>,
): ResolvedConnection {
  if (settings.account) return resolveAccount(settings, settings.account, env);
  const envOrigin = nonEmpty(env.DOOHCTL_API_ORIGIN);
  // The environment's credentials go where it says (docs/safety.md, Credentials): in CI a pull
  // request may edit the config, never the environment.
  if (envOrigin === undefined && isCi(env)) {
    throw new ConnectionError(
      "CONNECTION_NO_ORIGIN",
      "CI=true and DOOHCTL_API_ORIGIN is not set: in CI the credentials go only to the origin the environment names, never to one read from the config (a pull request may edit it). Set DOOHCTL_API_ORIGIN in the workflow (like DOOHCTL_API_ORIGIN: https://dsp.example.com). Nothing was sent",
    );
  }
  const apiOrigin = envOrigin ?? settings.apiOrigin;
  if (apiOrigin === undefined) {
    throw new ConnectionError(
      "CONNECTION_NO_ORIGIN",
      "no API origin: set connection.api_origin in the config or DOOHCTL_API_ORIGIN (like https://dsp.example.com)",
    );
  }
  if (envOrigin !== undefined) {
    // Also refuses user:password@, which `.origin` below would otherwise drop silently.
    const problem = originProblem(envOrigin);
    if (problem !== undefined)
      throw new ConnectionError("CONNECTION_INVALID", `DOOHCTL_API_ORIGIN: ${problem}`);
  }
  if (envOrigin !== undefined && settings.apiOrigin !== undefined) {
    const configured = originOf(settings.apiOrigin);
    if (configured !== new URL(envOrigin).origin) {
      throw new ConnectionError(
        "CONNECTION_ORIGIN_MISMATCH",
        `the config's connection.api_origin (${configured ?? "not a URL"}) is not DOOHCTL_API_ORIGIN (${new URL(envOrigin).origin}): the credentials in the environment go only where the environment says, and a config naming another DSP is refused; nothing was sent and no login was made. Make them the same, or remove connection.api_origin from the config`,
      );
    }
  }
  return {
    apiOrigin: new URL(apiOrigin).origin,
    environment: environmentOf(settings, env),
    rateLimits: settings.rateLimits ?? PUBLISHED_RATE_LIMITS,
  };
}

/**
 * One of several accounts: its origin only from its own variable, never DOOHCTL_API_ORIGIN nor
 * the config alone, so its credentials go only there (docs/safety.md, Credentials).
 */
function resolveAccount(
  settings: ConnectionSettings,
  account: AccountSettings,
  env: Readonly<Record<string, string | undefined>>,
): ResolvedConnection {
  const name = account.apiOriginFrom;
  const origin = nonEmpty(env[name]);
  if (origin === undefined) {
    throw new ConnectionError(
      "CONNECTION_NO_ORIGIN",
      `account ${account.name}: ${name} is not set: this account's credentials go only to the origin ${name} names (its connection.api_origin_from), never to DOOHCTL_API_ORIGIN or one read from the config alone. Set ${name} (like ${name}=https://dsp.example.com); nothing was sent`,
    );
  }
  const problem = originProblem(origin);
  if (problem !== undefined) {
    throw new ConnectionError("CONNECTION_INVALID", `account ${account.name}: ${name}: ${problem}`);
  }
  const named = new URL(origin).origin;
  if (settings.apiOrigin !== undefined && originOf(settings.apiOrigin) !== named) {
    throw new ConnectionError(
      "CONNECTION_ORIGIN_MISMATCH",
      `account ${account.name}: the config's connection.api_origin (${originOf(settings.apiOrigin) ?? "not a URL"}) is not ${name} (${named}): the credentials go only where the environment says; nothing was sent and no login was made. Make them the same, or remove connection.api_origin from the config`,
    );
  }
  return {
    apiOrigin: named,
    environment: environmentOf(settings, env),
    rateLimits: settings.rateLimits ?? PUBLISHED_RATE_LIMITS,
    account: { name: account.name, emailFrom: account.emailFrom, passwordFrom: account.passwordFrom },
  };
}

/** DOOHCTL_ENVIRONMENT, else the config's, else production. */
function environmentOf(
  settings: ConnectionSettings,
  env: Readonly<Record<string, string | undefined>>,
): Environment {
  const envEnvironment = nonEmpty(env.DOOHCTL_ENVIRONMENT);
  if (envEnvironment !== undefined && envEnvironment !== "production" && envEnvironment !== "staging") {
    throw new ConnectionError(
      "CONNECTION_INVALID",
      `DOOHCTL_ENVIRONMENT is "${envEnvironment}": set it to production or staging`,
    );
  }
  return envEnvironment ?? settings.environment ?? "production";
}

/** `CI=true` (GitHub Actions, GitLab CI and most runners set it), or `CI=1`. */
function isCi(env: Readonly<Record<string, string | undefined>>): boolean {
  const ci = env.CI?.trim().toLowerCase();
  return ci === "true" || ci === "1";
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}
