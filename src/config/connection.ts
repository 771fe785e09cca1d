/**
 * Where to connect: the config's `connection`, overridden by DOOHCTL_API_ORIGIN and
 * DOOHCTL_ENVIRONMENT. Pure: the CLI (the only reader of the environment) passes `io.env`.
 */
import type { ConnectionSettings } from "../model/desired.js";
import { PUBLISHED_RATE_LIMITS, type RateLimits } from "../model/limits.js";
import type { Environment } from "../model/wire.js";
import { originProblem } from "./origin-problem.js";

export interface ResolvedConnection {
  apiOrigin: string;
  environment: Environment;
  rateLimits: RateLimits;
}

export class ConnectionError extends Error {
  override readonly name = "ConnectionError";
  constructor(
    readonly code: "CONNECTION_NO_ORIGIN" | "CONNECTION_INVALID",
    message: string,
  ) {
    super(message);
  }
}

export function resolveConnection(
  settings: ConnectionSettings,
  env: Readonly<Record<string, string | undefined>>,
): ResolvedConnection {
  const envOrigin = nonEmpty(env.DOOHCTL_API_ORIGIN);
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
  const envEnvironment = nonEmpty(env.DOOHCTL_ENVIRONMENT);
  if (envEnvironment !== undefined && envEnvironment !== "production" && envEnvironment !== "staging") {
    throw new ConnectionError(
      "CONNECTION_INVALID",
      `DOOHCTL_ENVIRONMENT is "${envEnvironment}": set it to production or staging`,
    );
  }
  return {
    apiOrigin: new URL(apiOrigin).origin,
    environment: envEnvironment ?? settings.environment ?? "production",
    rateLimits: settings.rateLimits ?? PUBLISHED_RATE_LIMITS,
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}
