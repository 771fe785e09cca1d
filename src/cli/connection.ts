/**
 * Builds the DSP client for a command from the config's connection and the environment,
 * shared by plan, apply and export. The environment is read here (src/cli) and nowhere else:
 * DOOHCTL_EMAIL and DOOHCTL_PASSWORD (required to read live state), DOOHCTL_API_ORIGIN and
 * DOOHCTL_ENVIRONMENT (override the config), DOOHCTL_SESSION_CACHE=off, DOOHCTL_REQUEST_TIMEOUT
 * and DOOHCTL_MAX_RESPONSE_BYTES (the client's whole-request deadline and answer size cap).
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { createDspClient } from "../api/client.js";
import { filePacingLog, type PacingLog, PacingLogError, pacingLogPath } from "../api/pacing-log.js";
import { StateDirError } from "../api/private-files.js";
import type { DspClient, DspClientOptions } from "../api/types.js";
import { credentialVariables, type ResolvedConnection, resolveConnection } from "../config/connection.js";
import { FileRefused, readRegularFileSync } from "../config/file-guard.js";
import type { Clock } from "../model/clock.js";
import type { ConnectionSettings } from "../model/desired.js";
import type { CliIO } from "./io.js";

export class MissingCredentialsError extends Error {
  override readonly name = "MissingCredentialsError";
  readonly code = "CREDENTIALS_MISSING";
}

export interface ConnectOptions {
  /** False with `--no-session-cache`; DOOHCTL_SESSION_CACHE=off turns it off too. */
  sessionCache: boolean;
  /** `--ca FILE`: a PEM CA certificate trusted in addition to Node's bundled roots. */
  caFile?: string | undefined;
  /** Extra client options, e.g. retry limits in tests. */
  client?: Partial<DspClientOptions>;
}

export interface Connection {
  client: DspClient;
  connection: ResolvedConnection;
  /** Pacing across runs: other runs' requests in the windows (absent with the session cache off). */
  pacing?: PacingLog;
}

/**
 * The API user's credentials: DOOHCTL_EMAIL and DOOHCTL_PASSWORD, or for one of several
 * accounts only the variables its `email_from` and `password_from` name (docs/safety.md).
 */
function credentials(env: CliIO["env"], connection: ResolvedConnection): { email: string; password: string } {
  const names = credentialVariables(connection);
  const missing = [names.email, names.password].filter((name) => !env[name]);
  if (missing.length > 0) {
    const whose = connection.account ? `account ${connection.account.name}: ` : "";
    throw new MissingCredentialsError(
      `${whose}${missing.join(" and ")} ${missing.length === 1 ? "is" : "are"} not set: reading live state needs the API user's credentials in ${names.email} and ${names.password} (never in a config file)`,
    );
  }
  return { email: env[names.email]!, password: env[names.password]! };
}

/** The API user this run logs in as (its email), or "" when the variable is unset. */
export function runUser(env: CliIO["env"], connection: Pick<ResolvedConnection, "account">): string {
  return env[credentialVariables(connection).email] ?? "";
}

/**
 * The session cache and the pacing log live here. One of several accounts has a directory of
 * its own (`accounts/<name>`; docs/safety.md, Keeping two accounts apart), so a job of one
 * account never reads or writes another's session or request log, whatever their users.
 */
function sessionCacheDir(env: CliIO["env"], connection: ResolvedConnection): string {
  const base = join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache"), "doohctl");
  return connection.account ? join(base, "accounts", connection.account.name) : base;
}

/** A CA bundle of every public root is about 200 KiB. */
const CA_FILE_LIMIT = { bytes: 1024 * 1024, of: "a CA file", advice: "pass a PEM certificate file" };

export class CaFileError extends Error {
  override readonly name = "CaFileError";
  readonly code = "CA_FILE_UNREADABLE";
}

function readCa(path: string, cwd: string): string {
  let text: string;
  try {
    // A regular file under the cap: a pipe or a device named here would hang or never end.
    text = Buffer.from(readRegularFileSync(resolve(cwd, path), CA_FILE_LIMIT)).toString("utf8");
  } catch (error) {
    const why = error instanceof FileRefused ? error.message.replace(/[;:] .*$/, "") : undefined;
    throw new CaFileError(
      `--ca ${path}: cannot read it (${why ?? (error as NodeJS.ErrnoException).code ?? String(error)}): pass a PEM certificate file`,
    );
  }
  if (!text.includes("-----BEGIN CERTIFICATE-----")) {
    throw new CaFileError(`--ca ${path}: not a PEM certificate (no "-----BEGIN CERTIFICATE-----" line)`);
  }
  return text;
}

export class ClientLimitError extends Error {
  override readonly name = "ClientLimitError";
  readonly code = "CLIENT_LIMIT_INVALID";
}

/** The answer-size cap and whole-request deadline, when the environment sets them. */
function clientLimits(env: CliIO["env"]): Partial<DspClientOptions> {
  const out: Partial<DspClientOptions> = {};
  const timeout = env.DOOHCTL_REQUEST_TIMEOUT;
  if (timeout !== undefined && timeout !== "") {
    const seconds = Number(timeout);
    if (!Number.isFinite(seconds) || seconds <= 0) {
      throw new ClientLimitError(
        `DOOHCTL_REQUEST_TIMEOUT="${timeout}" is not a number of seconds above 0: write e.g. DOOHCTL_REQUEST_TIMEOUT=120`,
      );
    }
    out.timeouts = { requestMs: Math.ceil(seconds * 1000) };
  }
  const bytes = env.DOOHCTL_MAX_RESPONSE_BYTES;
  if (bytes !== undefined && bytes !== "") {
    if (!/^[1-9][0-9]*$/.test(bytes)) {
      throw new ClientLimitError(
        `DOOHCTL_MAX_RESPONSE_BYTES="${bytes}" is not a whole number of bytes above 0: write e.g. DOOHCTL_MAX_RESPONSE_BYTES=134217728 (128 MiB)`,
      );
    }
    out.maxResponseBytes = Number(bytes);
  }
  return out;
}

/** Resolves where to connect and builds the client; throws before any request on a problem. */
export function connect(io: CliIO, settings: ConnectionSettings, options: ConnectOptions): Connection {
  const connection = resolveConnection(settings, io.env);
  const cacheOn = options.sessionCache && io.env.DOOHCTL_SESSION_CACHE?.toLowerCase() !== "off";
  const who = credentials(io.env, connection);
  const pacing = cacheOn
    ? pacingLog(sessionCacheDir(io.env, connection), connection, who.email, io.clock)
    : undefined;
  const client = createDspClient({
    apiOrigin: connection.apiOrigin,
    environment: connection.environment,
    credentials: who,
    rateLimits: connection.rateLimits,
    ...(settings.dialect ? { dialect: settings.dialect } : {}),
    sessionCache: cacheOn ? { dir: sessionCacheDir(io.env, connection) } : false,
    // Pacing across runs: the request log lives (and is turned off) with the session cache.
    ...(pacing ? { pacingLog: pacing } : {}),
    clock: io.clock,
    ...(options.caFile !== undefined ? { ca: readCa(options.caFile, io.cwd) } : {}),
    ...clientLimits(io.env),
    ...options.client,
  });
  client.on((event) => {
    if (event.type === "warning") io.stderr.write(`doohctl: warning: ${event.message}\n`);
  });
  return { client, connection, ...(pacing ? { pacing } : {}) };
}

function pacingLog(
  dir: string,
  connection: ResolvedConnection,
  email: string,
  clock: Clock,
): PacingLog | undefined {
  const now = () => clock.now();
  const longest = Math.max(...Object.values(connection.rateLimits).map((w) => w.windowMs));
  try {
    const path = pacingLogPath(dir, {
      origin: connection.apiOrigin,
      environment: connection.environment,
      email,
    });
    return filePacingLog({ path, now, keepMs: longest + 1_000 });
  } catch (error) {
    // A directory or log another user could write is refused loudly, before any request
    // (private-files.ts); an unusable one (a read-only home): each run paces on its own.
    if (error instanceof PacingLogError || (error instanceof StateDirError && error.unsafe)) throw error;
    return undefined;
  }
}
