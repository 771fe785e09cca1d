/**
 * The client's public surface: what `plan/` and `apply/` may use. undici's types never leave
 * `api/`. The implementation is `createDspClient` in `client.ts`.
 */

import type { Clock } from "../model/clock.js";
import type { Dialect } from "../model/dialect.js";
import type { RateLimits, RequestClass } from "../model/limits.js";
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
 * Everything the client needs, documented with its default. Defaults live in one place,
 * `CLIENT_DEFAULTS` in `defaults.ts`. The CLI builds this from config and environment; the
 * client reads no environment variable itself.
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
   * Directory of the session cache (mode 0600 files, keyed by origin, environment and user);
   * `false` turns the cache off. The CLI passes `$XDG_CACHE_HOME/doohctl`, else
   * `~/.cache/doohctl` (src/cli/connection.ts).
   * @default false
   */
  sessionCache?: { dir: string } | false;
  /**
   * Pacing across runs (`pacing-log.ts`): the requests other runs made for the same origin,
   * environment and user count against the windows too. The CLI passes a file next to the
   * session cache. Without it the client paces on its own requests only.
   * @default undefined
   */
  pacingLog?: PacingLog;
  /**
   * Real-time limits; they do not follow `clock`. `requestMs` is a whole-request deadline,
   * from the send to the last byte of the answer (a trickling server cannot stretch it).
   * @default { connectMs: 10_000, requestMs: 60_000 }
   */
  timeouts?: { connectMs?: number; requestMs?: number };
  /**
   * The largest answer read; past it reading stops and the request fails with a
   * ResponseTooLargeError (not retried). @default 16_777_216 (16 MiB)
   */
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
  /**
   * Extra hold of a rate-limit slot after response + window, against a server that counts
   * the window's boundary in. @default 1
   */
  rateMarginMs?: number;
  /** Extra trusted CA certificates (PEM), for a DSP behind a private CA. @default none */
  ca?: string;
  /** Source of randomness for backoff jitter, in [0, 1); tests pass a seeded one. @default Math.random */
  random?: () => number;
  /**
   * Told what each login showed: cookie names and attributes (never a value), status, body
   * and TLS (login-seen.ts). `doohctl doctor` looks at the client's own login this way, so a
   * run logs in once. @default none
   */
  onLogin?: (seen: LoginSeen) => void;
  /**
   * Told the members an answer held that the contract does not name (G14), as
   * `Schema.member` (`Campaign.frequency_cap`); they are dropped from what the client keeps.
   * @default none
   */
  onUnknownMembers?: (members: readonly string[]) => void;
  /**
   * Where the DSP differs from the gap decisions G1, G2, G3 and G5 (`connection.dialect`,
   * src/model/dialect.ts): requests are built and answers read through it.
   * @default the gap decisions as written
   */
  dialect?: Dialect;
}

/** What the client reports, for progress display and the apply journal. Never a secret. */
export type ApiEvent =
  | {
      /**
       * An attempt went out (its rate-limit slot granted) and has no answer yet: progress
       * counts down to `deadline` and matches the `response` of the same `id`.
       */
      type: "sent";
      /** Unique per attempt within one client. */
      id: number;
      class: RequestClass;
      method: HttpMethod;
      path: string;
      /** Attempt k of n, as `retry.maxAttempts` counts them (a 429 is not one). */
      tries: { attempt: number; of: number };
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
  /**
   * GETs only: the answer as it came, parsed (depth-checked) but neither put in the contract's
   * names nor judged by it. Doctor looks at a DSP's own members this way (`--suggest-dialect`).
   */
  raw?: boolean;
  /** Items the request carries (batch size), for events. */
  items?: number;
  /** The check a write makes the moment before it goes out (BeforeSend). */
  beforeSend?: BeforeSend;
}

/**
 * Run by the client once a request holds its slot of the rate window, immediately before
 * each attempt goes out: after any pacing wait, retry backoff or re-login, so nothing waits
 * between it and the send (the write guard's read, docs/apply.md, Edits by others during an
 * apply). `mayHaveLanded`: an earlier attempt got a 5xx or no answer, so the DSP may already
 * hold what the request writes. A throw stops the request unsent, with that error.
 */
export type BeforeSend = (attempt: { mayHaveLanded: boolean }) => Promise<void>;

/**
 * The batch reads plan and apply use, each in as few requests as the API allows (paging.ts),
 * built on `send` by readers.ts. Here, not in readers.ts: types.ts imports no module of api/
 * that imports it back (Biome's noImportCycles, biome.json).
 */
export interface DspReaders {
  /** G1, by `filter=id:` 100 a request. Missing ids are simply absent from the result. */
  getInsertionOrders(ids: readonly string[], options?: SendOptions): Promise<InsertionOrder[]>;
  /**
   * G2, by `filter=insertion_order_id:`, paged at 100. `includeProgress` asks the same
   * requests for each campaign's `progress` (G2 `include_progress=true`): no extra request.
   */
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
  /**
   * By `GET /creative_categories/{id}` or the unfiltered list, whichever is cheaper: the list
   * names no filter field (G12). Missing ids are absent from the result.
   */
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
  /**
   * Logs in now unless a session is held already (cached or current); later requests use it.
   * `doohctl doctor` looks at that login before its first read. Fails like a login does.
   */
  openSession(signal?: AbortSignal): Promise<void>;
  /** Closes the connection pool. The session stays valid (and cached) for the next run. */
  close(): Promise<void>;
}
