/** What `plan/` and `apply/` may use of the client (`createDspClient`); undici's types never leave `api/`. */

import type { Clock } from "../model/clock.js";
import type { Dialect } from "../model/dialect.js";
import type { RateLimits, RequestClass } from "../model/limits.js";
import type { Tries } from "../model/silence.js";
import type { TargetingOptionSet } from "../model/targeting.js";
import type {
  Advertiser,
  Campaign,
  Creative,
  CreativeCategory,
  Environment,
  InsertionOrder,
} from "../model/wire.js";
import type { DspEndpoints } from "./endpoints.js";
import type { LoginSeen } from "./login-seen.js";
import type { PacingLog } from "./pacing-log.js";
import type { ApiRequest, Credentials, HttpMethod } from "./request.js";

export type { ApiRequest, Credentials, HttpMethod, TypedRequest } from "./request.js";

/**
 * Everything the client needs, with its default (all in `CLIENT_DEFAULTS`, defaults.ts). The
 * CLI builds this from config and environment; the client reads no environment variable.
 */
export interface DspClientOptions {
  /** Scheme and host, e.g. `https://dsp.example.com`; `http://` only for loopback (G13). */
  apiOrigin: string;
  /** Picks the session cookie: `tr-production` or `tr-staging` (spec, Authentication 3). */
  environment: Environment;
  credentials: Credentials;
  /** @default PUBLISHED_RATE_LIMITS (get 100/60s, write 10/60s, session 10/60s) */
  rateLimits?: RateLimits;
  /** @default systemClock */
  clock?: Clock;
  /**
   * Directory of the session cache (0600 files keyed by origin, environment and user); `false`
   * turns it off. The CLI passes `$XDG_CACHE_HOME/doohctl` (src/cli/connection.ts). @default false
   */
  sessionCache?: { dir: string } | false;
  /**
   * Pacing across runs (`pacing-log.ts`): other runs' requests for the same origin, environment
   * and user count against the windows too. Without it, only this client's count. @default undefined
   */
  pacingLog?: PacingLog;
  /**
   * Real time, not `clock`'s. `requestMs` runs from the send to the answer's last byte (a
   * trickling server cannot stretch it). @default { connectMs: 10_000, requestMs: 60_000 }
   */
  timeouts?: { connectMs?: number; requestMs?: number };
  /** The largest answer read; past it, a ResponseTooLargeError (not retried). @default 16_777_216 (16 MiB) */
  maxResponseBytes?: number;
  retry?: {
    /** Attempts in all for idempotent requests after network errors, timeouts and 5xx. @default 4 */
    maxAttempts?: number;
    /** A single wait (Retry-After or backoff) longer than this fails the run. @default 120_000 */
    maxWaitMs?: number;
    /** First backoff ceiling, doubled per retry (full jitter). @default 500 */
    baseDelayMs?: number;
    /** Backoff ceiling. @default 30_000 */
    maxDelayMs?: number;
    /** 429 answers tolerated for one request before giving up. @default 10 */
    maxRateLimited?: number;
  };
  /** Requests in flight at once per class. @default { get: 8, write: 4, session: 1 } */
  concurrency?: Partial<Record<RequestClass, number>>;
  /** Extra hold of a slot after response + window, for a server that counts the boundary in. @default 1 */
  rateMarginMs?: number;
  /** Extra trusted CA certificates (PEM), for a DSP behind a private CA. @default none */
  ca?: string;
  /** Source of randomness for backoff jitter, in [0, 1); tests pass a seeded one. @default Math.random */
  random?: () => number;
  /** Told what each login showed (login-seen.ts; never a cookie value): doctor's one login. @default none */
  onLogin?: (seen: LoginSeen) => void;
  /** Told the members an answer held that the contract does not name (G14, `Campaign.x`). @default none */
  onUnknownMembers?: (members: readonly string[]) => void;
  /** Where the DSP differs from G1, G2, G3, G5 (src/model/dialect.ts). @default the gap decisions */
  dialect?: Dialect;
}

/** What the client reports, for progress display and the apply journal. Never a secret. */
export type ApiEvent =
  | {
      /** An attempt went out (slot granted), unanswered yet: its `response` has the same `id`. */
      type: "sent";
      /** Unique per attempt within one client. */
      id: number;
      class: RequestClass;
      method: HttpMethod;
      path: string;
      /** Attempt k of n, as `retry.maxAttempts` counts them (a 429 is not one). */
      tries: Tries;
      /** Clock time at which the whole-request deadline (`timeouts.requestMs`) runs out. */
      deadline: number;
      timeoutMs: number;
    }
  | {
      type: "response";
      /** The `id` of the attempt's `sent` event. */
      id: number;
      class: RequestClass;
      method: HttpMethod;
      path: string;
      items: number;
      /** HTTP status, or the kind of failure when no response came. */
      status: number | "network-error" | "timeout";
      durationMs: number;
      attempt: number;
      /** Time spent waiting for a rate-limit slot or a retry before this attempt. */
      waitedMs: number;
    }
  | {
      type: "wait";
      class: RequestClass;
      reason: "rate-limit" | "retry-after" | "backoff";
      /** Clock time at which the wait ends: progress shows a countdown to it. */
      until: number;
      waitMs: number;
    }
  | { type: "login"; email: string; cached: boolean }
  /** Something the user should know that does not stop the run (e.g. an unwritable session cache). */
  | { type: "warning"; message: string };

export interface ClientStats {
  reads: number;
  writes: number;
  logins: number;
  retries: number;
  rateLimited: number;
}

export interface SendOptions {
  signal?: AbortSignal;
  /** GETs only: the answer as it came, parsed (depth-checked), neither renamed nor judged (doctor). */
  raw?: boolean;
  /** Items the request carries (batch size), for events. */
  items?: number;
  /** The check a write makes the moment before it goes out (BeforeSend). */
  beforeSend?: BeforeSend;
}

/**
 * Run once a request holds its slot, right before each attempt: after every pacing wait,
 * backoff or re-login, so nothing waits between it and the send (the write guard, docs/apply.md).
 * `mayHaveLanded`: an earlier attempt got a 5xx or no answer. A throw stops the request unsent.
 */
export type BeforeSend = (attempt: { mayHaveLanded: boolean }) => Promise<void>;

/**
 * The batch reads of plan and apply, in as few requests as the API allows (readers.ts). Here:
 * types.ts imports no module of api/ that imports it back (noImportCycles, biome.json).
 */
export interface DspReaders {
  /** G1, by `filter=id:` 100 a request. Missing ids are simply absent from the result. */
  getInsertionOrders(ids: readonly string[], options?: SendOptions): Promise<InsertionOrder[]>;
  /** G2, by `filter=insertion_order_id:`; `includeProgress` adds `progress` at no extra request. */
  listCampaignsByInsertionOrder(
    insertionOrderIds: readonly string[],
    options?: SendOptions & { includeProgress?: boolean },
  ): Promise<Campaign[]>;
  getCampaigns(ids: readonly string[], options?: SendOptions): Promise<Campaign[]>;
  /** G5, one GET each, several in flight within the GET window. */
  getTargetings(
    campaignIds: readonly string[],
    options?: SendOptions,
  ): Promise<Map<string, TargetingOptionSet[]>>;
  /** G6, by `filter=id:`. */
  getCreatives(ids: readonly string[], options?: SendOptions): Promise<Creative[]>;
  /** G6, by `filter=campaign_ids:` (array containment). */
  listCreativesByCampaign(campaignIds: readonly string[], options?: SendOptions): Promise<Creative[]>;
  getAdvertisers(ids: readonly string[], options?: SendOptions): Promise<Advertiser[]>;
  /** By id or the unfiltered list, whichever is cheaper (G12; categories.ts). Missing ids are absent. */
  getCreativeCategories(ids: readonly string[], options?: SendOptions): Promise<CreativeCategory[]>;
}

export interface DspClient extends DspReaders {
  /** The dialect the client speaks (`connection.dialect`; the gap decisions when none). */
  readonly dialect: Dialect;
  /** The endpoints as that dialect places them: build every request from these. */
  readonly endpoints: DspEndpoints;
  /** One request through session, retry and pacing; resolves to the parsed JSON body. */
  send<T = unknown>(request: ApiRequest & { readonly __response?: T }, options?: SendOptions): Promise<T>;

  /** G9: the account of the session (logs in when there is none yet); keys the recovery record. */
  accountId(signal?: AbortSignal): Promise<string>;

  /** Subscribes to events; returns the unsubscribe function. */
  on(listener: (event: ApiEvent) => void): () => void;
  stats(): ClientStats;
  /** Logs in now unless a session is held (doctor looks at that login first). Fails as a login does. */
  openSession(signal?: AbortSignal): Promise<void>;
  /** Closes the connection pool. The session stays valid (and cached) for the next run. */
  close(): Promise<void>;
}
