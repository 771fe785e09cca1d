/**
 * One session per run (spec, Authentication 2 to 5; G9): one login shared by concurrent
 * requests, again near its 8-hour end or on a 403; an optional 0600 cache file lets later runs
 * reuse it. The token is never in an event, an error or a log line. What the cache is trusted
 * with, and why never the account: docs/api-client.md, Sessions.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Clock } from "../model/clock.js";
import { type Environment, SESSION_LIFETIME_MS } from "../model/wire.js";
import { writeFileAtomic } from "./atomic-write.js";
import {
  CACHE_DIR,
  type OwnerCheck,
  PrivateFileError,
  privateDir,
  readPrivateFile,
  StateDirError,
} from "./private-files.js";

/** A token is not used in its last minutes: a long request must not outlive it. */
export const SESSION_EXPIRY_MARGIN_MS = 5 * 60 * 1000;

export interface SessionToken {
  token: string;
  /** Clock time at which the session ends. */
  expiresAt: number;
  /** G9: the account the user belongs to, from the login answer (the recovery record's key). */
  accountId: string;
}

export interface SessionOptions {
  origin: string;
  environment: Environment;
  email: string;
  clock: Clock;
  cacheDir: string | undefined;
  /** Creates a new session on the DSP (paced by the session window). */
  login(signal?: AbortSignal): Promise<SessionToken>;
  /** Told when a session comes into use: from a login or from the cache file. */
  onSession?: (cached: boolean) => void;
  /** Told when the cache cannot be read safely or written: the run goes on without it. */
  onCacheError?: (message: string) => void;
  /** The OS user the cache must belong to (default this process's); tests inject another. */
  owner?: OwnerCheck;
}

interface CacheFile {
  version: 1;
  origin: string;
  environment: Environment;
  email: string;
  token: string;
  expiresAt: number;
  accountId: string;
}

export class Session {
  private current: SessionToken | undefined;
  private pending: Promise<SessionToken> | undefined;
  private cacheRead: Promise<void> | undefined;
  private cacheFile: Promise<SessionToken | undefined> | undefined;
  /** The session of this run's latest login: the one whose account the DSP named. */
  private loggedIn: SessionToken | undefined;
  /** The cache directory was refused (and the user told): nothing is written there either. */
  private cacheRefused = false;
  private readonly options: SessionOptions;

  constructor(options: SessionOptions) {
    this.options = options;
  }

  /** A valid token, logging in (once, shared by concurrent callers) when there is none. */
  async token(signal?: AbortSignal): Promise<string> {
    if (this.current && this.usable(this.current)) return this.current.token;
    // One read of the cache file, shared by the concurrent first requests of a run.
    this.cacheRead ??= this.cached().then((cached) => {
      if (cached && this.usable(cached) && !this.current) {
        this.current = cached;
        this.options.onSession?.(true);
      }
    });
    await this.cacheRead;
    if (this.current && this.usable(this.current)) return this.current.token;
    return (await this.refresh(signal)).token;
  }

  /**
   * G9: the account the DSP's login answer names, never the cache's: the first call logs in
   * whatever the cache holds; a cache of another account is replaced, with a warning.
   */
  async accountId(signal?: AbortSignal): Promise<string> {
    if (this.loggedIn) return this.loggedIn.accountId;
    const cached = await this.cached();
    const { accountId } = await this.refresh(signal);
    if (cached !== undefined && cached.accountId !== accountId) {
      this.options.onCacheError?.(
        `session cache discarded: ${this.cachePath()} named account ${cached.accountId}, the DSP's login answer names account ${accountId} (G9); it now holds this login's session`,
      );
    }
    return accountId;
  }

  /** The DSP refused `token` (403): the token to retry with, from a new login unless another made one. */
  async renew(rejected: string, signal?: AbortSignal): Promise<string> {
    if (this.current && this.current.token !== rejected && this.usable(this.current)) {
      return this.current.token;
    }
    this.current = undefined;
    return (await this.refresh(signal)).token;
  }

  private usable(session: SessionToken): boolean {
    return session.expiresAt - SESSION_EXPIRY_MARGIN_MS > this.options.clock.now();
  }

  private refresh(signal?: AbortSignal): Promise<SessionToken> {
    if (!this.pending) {
      this.pending = this.options
        .login(signal)
        .then(async (session) => {
          this.current = session;
          this.loggedIn = session;
          this.options.onSession?.(false);
          // The cache only saves a login next time: failing to write it must not fail this run.
          await this.writeCache(session).catch((error: NodeJS.ErrnoException) => {
            this.options.onCacheError?.(
              error instanceof StateDirError
                ? `session cache not written: ${error.message}`
                : `cannot write the session cache in ${this.options.cacheDir} (${error.code ?? error.message}); ` +
                    "going on without it (turn it off with --no-session-cache or DOOHCTL_SESSION_CACHE=off)",
            );
          });
          return session;
        })
        .finally(() => {
          this.pending = undefined;
        });
    }
    return this.pending;
  }

  /** Keyed by origin, environment and user; the name reveals none of them. */
  private cachePath(): string | undefined {
    const { cacheDir, origin, environment, email } = this.options;
    if (cacheDir === undefined) return undefined;
    const key = createHash("sha256").update(`${origin}\n${environment}\n${email}`).digest("hex");
    return join(cacheDir, `session-${key.slice(0, 32)}.json`);
  }

  /** The cache file's session, read once per run (so its warnings are said once). */
  private cached(): Promise<SessionToken | undefined> {
    this.cacheFile ??= this.readCache();
    return this.cacheFile;
  }

  private async readCache(): Promise<SessionToken | undefined> {
    const path = this.cachePath();
    const dir = this.options.cacheDir;
    if (!path || dir === undefined) return undefined;
    const owner = this.options.owner ? { owner: this.options.owner } : {};
    let text: string | undefined;
    try {
      if (!privateDir(dir, { create: false, place: CACHE_DIR, ...owner })) return undefined;
      text = readPrivateFile(path, owner);
    } catch (error) {
      if (error instanceof StateDirError) {
        this.cacheRefused = true;
        this.options.onCacheError?.(`session cache not used, logging in afresh: ${error.message}`);
      } else if (error instanceof PrivateFileError) {
        this.options.onCacheError?.(`session cache not used, logging in afresh: ${path} is ${error.message}`);
      }
      // Otherwise an unreadable file: a fresh login replaces it.
      return undefined;
    }
    if (text === undefined) return undefined;
    let file: Partial<CacheFile> | null;
    try {
      file = JSON.parse(text) as Partial<CacheFile> | null;
    } catch {
      file = null;
    }
    if (file === null || typeof file !== "object") {
      this.options.onCacheError?.(`session cache not used, logging in afresh: ${path} is not a JSON object`);
      return undefined;
    }
    const { origin, environment, email, clock } = this.options;
    if (
      file.version !== 1 ||
      file.origin !== origin ||
      file.environment !== environment ||
      file.email !== email ||
      typeof file.token !== "string" ||
      typeof file.expiresAt !== "number" ||
      // Time read from a file is bounded: no session outlives its 8 hours from now (a clock
      // stepped back, or a forged date), whatever the file says.
      file.expiresAt > clock.now() + SESSION_LIFETIME_MS ||
      // A cache file of an earlier doohctl holds no account id: a fresh login replaces it.
      typeof file.accountId !== "string" ||
      file.accountId === ""
    ) {
      return undefined;
    }
    return { token: file.token, expiresAt: file.expiresAt, accountId: file.accountId };
  }

  /** Through the one atomic write: 0600, in a 0700 directory of this user's (checked first). */
  private async writeCache(session: SessionToken): Promise<void> {
    const path = this.cachePath();
    const dir = this.options.cacheDir;
    if (!path || dir === undefined || this.cacheRefused) return;
    const { origin, environment, email } = this.options;
    const file: CacheFile = { version: 1, origin, environment, email, ...session };
    privateDir(dir, {
      create: true,
      place: CACHE_DIR,
      ...(this.options.owner ? { owner: this.options.owner } : {}),
    });
    await writeFileAtomic(path, `${JSON.stringify(file)}\n`, { mode: 0o600 });
  }
}

/** Reads the token of `cookieName` from `Set-Cookie` headers. */
export function tokenFromSetCookie(
  header: string | string[] | undefined,
  cookieName: string,
): string | undefined {
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [header];
  for (const line of lines) {
    const [pair = ""] = line.split(";");
    const eq = pair.indexOf("=");
    if (eq > 0 && pair.slice(0, eq).trim() === cookieName) {
      const value = pair.slice(eq + 1).trim();
      if (value !== "") return value;
    }
  }
  return undefined;
}
