/**
 * A command's connection, resolved once from the config and the environment (`connectionOf`),
 * then the client built from it (`connect`; ARCHITECTURE.md, Connecting). The connection's
 * environment is read here and nowhere else: the credentials, the origin and environment
 * (src/config/connection.ts), the cache and state directories, the client's limits.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { createDspClient } from "../api/client.js";
import { filePacingLog, type PacingLog, PacingLogError, pacingLogPath } from "../api/pacing-log.js";
import { StateDirError } from "../api/private-files.js";
import type { DspClient, DspClientOptions } from "../api/types.js";
import { applyLockDir } from "../apply/lock.js";
import { checkedStateDir } from "../apply/recovery.js";
import { type ResolvedConnection, resolveConnection } from "../config/connection.js";
import { FileRefused, readRegularFileSync } from "../config/file-guard.js";
import type { Clock } from "../model/clock.js";
import type { ConnectionSettings } from "../model/desired.js";
import type { Dialect } from "../model/dialect.js";
import type { CliIO } from "./io.js";

/** Everything a command needs to reach the DSP, and where its state lives. Never a secret. */
export interface Connection extends ResolvedConnection {
  dialect?: Dialect;
  /** The variables the API user's email and password are read from (docs/safety.md). */
  credentials: { email: string; password: string };
  /** The API user this run logs in as: its email. */
  user: string;
  /** The session cache's and the pacing log's directory; absent with the cache off. */
  cacheDir?: string;
  /** The state directory, checked (`checkedStateDir`), for a command that reads the record. */
  stateDir?: string;
  /** Where the apply locks live (`applyLockDir`). */
  lockDir: string;
  /** The whole-request deadline, the answer-size cap, `--ca`'s certificate, `--max-wait`. */
  limits: Pick<DspClientOptions, "timeouts" | "maxResponseBytes" | "ca" | "retry">;
}

export interface ConnectOptions {
  /** False with `--no-session-cache`; DOOHCTL_SESSION_CACHE=off turns it off too. */
  sessionCache: boolean;
  /** `--ca FILE`: a PEM CA certificate trusted in addition to Node's bundled roots. */
  caFile?: string | undefined;
  /** `--max-wait`: the longest single Retry-After or backoff wait. */
  maxWaitMs?: number | undefined;
  /** The command reads the recovery record: its state directory is resolved and checked. */
  state?: boolean;
}

export class MissingCredentialsError extends Error {
  override readonly name = "MissingCredentialsError";
  readonly code = "CREDENTIALS_MISSING";
}

/**
 * Where to connect, as whom, where the state lives, the limits; throws before any request,
 * naming the variable or file. Only `connect` reads the password: no value handed round holds it.
 */
export function connectionOf(io: CliIO, settings: ConnectionSettings, options: ConnectOptions): Connection {
  const where = resolveConnection(settings, io.env);
  const credentials = where.account
    ? { email: where.account.emailFrom, password: where.account.passwordFrom }
    : { email: "DOOHCTL_EMAIL", password: "DOOHCTL_PASSWORD" };
  const missing = [credentials.email, credentials.password].filter((name) => !io.env[name]);
  if (missing.length > 0) {
    const whose = where.account ? `account ${where.account.name}: ` : "";
    throw new MissingCredentialsError(
      `${whose}${missing.join(" and ")} ${missing.length === 1 ? "is" : "are"} not set: reading live state needs the API user's credentials in ${credentials.email} and ${credentials.password} (never in a config file)`,
    );
  }
  const cacheOn = options.sessionCache && io.env.DOOHCTL_SESSION_CACHE?.toLowerCase() !== "off";
  return Object.freeze({
    ...where,
    ...(settings.dialect ? { dialect: settings.dialect } : {}),
    credentials,
    user: io.env[credentials.email]!,
    ...(cacheOn ? { cacheDir: cacheDirOf(io.env, where) } : {}),
    ...(options.state ? { stateDir: checkedStateDir(io.env) } : {}),
    lockDir: applyLockDir(io.env),
    limits: {
      ...(options.caFile !== undefined ? { ca: readCa(options.caFile, io.cwd) } : {}),
      ...clientLimits(io.env),
      ...(options.maxWaitMs !== undefined ? { retry: { maxWaitMs: options.maxWaitMs } } : {}),
    },
  });
}

/**
 * The session cache's and pacing log's directory; an account has its own (`accounts/<name>`;
 * docs/safety.md), so one account's job never uses another's session or log.
 */
function cacheDirOf(env: CliIO["env"], connection: ResolvedConnection): string {
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
function clientLimits(env: CliIO["env"]): Connection["limits"] {
  const out: Connection["limits"] = {};
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

/** The pacing log, session cache and client of a connection; `client` adds options. Nothing is sent. */
export function connect(
  io: CliIO,
  connection: Connection,
  client: Partial<DspClientOptions> = {},
): { client: DspClient; pacing?: PacingLog } {
  // Pacing across runs: the request log lives (and is turned off) with the session cache.
  const pacing = connection.cacheDir === undefined ? undefined : pacingLog(connection, io.clock);
  const dsp = createDspClient({
    apiOrigin: connection.apiOrigin,
    environment: connection.environment,
    credentials: { email: connection.user, password: io.env[connection.credentials.password]! },
    rateLimits: connection.rateLimits,
    ...(connection.dialect ? { dialect: connection.dialect } : {}),
    sessionCache: connection.cacheDir === undefined ? false : { dir: connection.cacheDir },
    ...(pacing ? { pacingLog: pacing } : {}),
    clock: io.clock,
    ...connection.limits,
    ...client,
  });
  dsp.on((event) => {
    if (event.type === "warning") io.stderr.write(`doohctl: warning: ${event.message}\n`);
  });
  return { client: dsp, ...(pacing ? { pacing } : {}) };
}

function pacingLog(connection: Connection, clock: Clock): PacingLog | undefined {
  const now = () => clock.now();
  const longest = Math.max(...Object.values(connection.rateLimits).map((w) => w.windowMs));
  try {
    const path = pacingLogPath(connection.cacheDir!, {
      origin: connection.apiOrigin,
      environment: connection.environment,
      email: connection.user,
    });
    return filePacingLog({ path, now, keepMs: longest + 1_000 });
  } catch (error) {
    // One another user could write is refused before any request (private-files.ts); an
    // unusable one (a read-only home): each run paces on its own.
    if (error instanceof PacingLogError || (error instanceof StateDirError && error.unsafe)) throw error;
    return undefined;
  }
}
