/**
 * `createDspClient`: the one way doohctl talks to the DSP. Layers, outermost first:
 * session (cookie, one re-login on 401/403) -> retry (429, and network errors, timeouts and
 * 5xx for idempotent requests) -> pacing (a p-queue per request class, each send behind a
 * sliding-window gate) -> transport (undici, TLS, G13 origin policy). Every attempt emits
 * an ApiEvent.
 */
import { type Clock, systemClock } from "../model/clock.js";
import { PUBLISHED_RATE_LIMITS, type RequestClass } from "../model/limits.js";
import {
  type ApiErrorBody,
  type ApiFieldError,
  MAX_BATCH,
  SESSION_LIFETIME_MS,
  SESSION_PATH,
  sessionCookieName,
} from "../model/wire.js";
import { readCreativeCategories } from "./categories.js";
import { type ContractIssue, checkAnswer, findOperation } from "./contract.js";
import { type CampaignListQuery, Endpoints } from "./endpoints.js";
import {
  ApiError,
  ContractError,
  CredentialsError,
  NetworkError,
  OutcomeUnknownError,
  RetryBudgetError,
  TimeoutError,
  TransportPolicyError,
} from "./errors.js";
import { HTML_ANSWER, isHtmlAnswer } from "./html.js";
import { type Grant, WindowLimiter } from "./limiter.js";
import { readByValues } from "./paging.js";
import { type AttemptOutcome, decideRetry, parseRetryAfter, type RetryPolicy } from "./retry.js";
import { Scrubber } from "./scrub.js";
import { Session, type SessionToken, tokenFromSetCookie } from "./session.js";
import { checkOrigin, type HttpResponse, Transport } from "./transport.js";
import type {
  ApiEvent,
  ApiRequest,
  ClientStats,
  DspClient,
  DspClientOptions,
  SendOptions,
  TypedRequest,
} from "./types.js";

/** Every default of DspClientOptions, in one place (documented there with @default). */
export const CLIENT_DEFAULTS = {
  rateLimits: PUBLISHED_RATE_LIMITS,
  clock: systemClock as Clock,
  sessionCache: false as const,
  timeouts: { connectMs: 10_000, requestMs: 60_000 },
  maxResponseBytes: 64 * 1024 * 1024,
  retry: { maxAttempts: 4, maxWaitMs: 120_000, baseDelayMs: 500, maxDelayMs: 30_000, maxRateLimited: 10 },
  concurrency: { get: 8, write: 4, session: 1 } as Record<RequestClass, number>,
  rateMarginMs: 1,
  random: Math.random,
};

interface Exchange {
  request: ApiRequest;
  cls: RequestClass;
  /** May be sent again after a network error, timeout or 5xx. */
  idempotent: boolean;
  items: number;
  cookie?: string;
  signal?: AbortSignal | undefined;
}

/** One attempt as it left the limiter: a response, or the network error or timeout instead. */
interface Sent {
  grant: Grant;
  response?: HttpResponse;
  failure?: NetworkError | TimeoutError;
}

function requestClass(request: ApiRequest): RequestClass {
  if (request.method === "POST" && request.path === SESSION_PATH) return "session";
  return request.method === "GET" ? "get" : "write";
}

/** A batch body `{campaigns: [...]}` carries its array's length; any other write one item. */
function itemsOf(request: ApiRequest): number {
  if (request.method === "GET") return 0;
  const body = request.body;
  if (body && typeof body === "object" && !Array.isArray(body)) {
    const values = Object.values(body);
    if (values.length === 1 && Array.isArray(values[0])) return values[0].length;
  }
  return 1;
}

function isFieldError(value: unknown): value is ApiFieldError {
  const v = value as Partial<ApiFieldError> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.field === "string" &&
    Array.isArray(v.messages) &&
    v.messages.every((m) => typeof m === "string")
  );
}

function errorBody(text: string, status: number): ApiErrorBody {
  try {
    const parsed = JSON.parse(text) as Partial<ApiErrorBody>;
    if (typeof parsed.message === "string") {
      // Spec, "Errors": `data` holds `{field, messages}` objects; anything else is dropped.
      return Array.isArray(parsed.data)
        ? { message: parsed.message, data: parsed.data.filter(isFieldError) }
        : { message: parsed.message };
    }
  } catch {
    // Not the spec's JSON error shape (a proxy's HTML page, say): keep a short excerpt.
  }
  return { message: text.trim().slice(0, 200) || `HTTP ${status}` };
}

/** The server's words, scrubbed of every secret before they become an error (issue 13, item 8). */
function apiError(request: ApiRequest, response: HttpResponse, scrubber: Scrubber): ApiError {
  const body = isHtmlAnswer(response) ? { message: HTML_ANSWER } : errorBody(response.text, response.status);
  return new ApiError({
    status: response.status,
    apiMessage: scrubber.text(body.message),
    ...(body.data ? { data: scrubber.fields(body.data) } : {}),
    method: request.method,
    path: request.path,
  });
}

function header(response: HttpResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function createDspClient(options: DspClientOptions): DspClient {
  const origin = checkOrigin(options.apiOrigin); // G13: before any connection
  const clock = options.clock ?? CLIENT_DEFAULTS.clock;
  const rateLimits = options.rateLimits ?? CLIENT_DEFAULTS.rateLimits;
  const concurrency = { ...CLIENT_DEFAULTS.concurrency, ...options.concurrency };
  const policy: RetryPolicy = {
    ...CLIENT_DEFAULTS.retry,
    ...options.retry,
    random: options.random ?? CLIENT_DEFAULTS.random,
  };
  const timeouts = { ...CLIENT_DEFAULTS.timeouts, ...options.timeouts };
  const { email } = options.credentials;
  const cookieName = sessionCookieName(options.environment);
  // Knows the password now and every token once it is sent or received.
  const scrubber = new Scrubber([options.credentials.password]);
  const transport = new Transport({
    scrub: (text) => scrubber.text(text),
    origin,
    connectTimeoutMs: timeouts.connectMs,
    requestTimeoutMs: timeouts.requestMs,
    connections: concurrency.get + concurrency.write + concurrency.session,
    maxResponseBytes: options.maxResponseBytes ?? CLIENT_DEFAULTS.maxResponseBytes,
    ca: options.ca,
  });
  const listeners = new Set<(event: ApiEvent) => void>();
  const emit = (event: ApiEvent) => {
    for (const listener of listeners) listener(event);
  };
  const stats: ClientStats = { reads: 0, writes: 0, logins: 0, retries: 0, rateLimited: 0 };
  const pacingLog = options.pacingLog;
  const limiterFor = (cls: RequestClass) =>
    new WindowLimiter({
      ...(pacingLog
        ? {
            shared: {
              others: (since) => pacingLog.others(cls, since),
              record: (at) => pacingLog.record(cls, at),
            },
          }
        : {}),
      window: rateLimits[cls],
      concurrency: concurrency[cls],
      clock,
      marginMs: options.rateMarginMs ?? CLIENT_DEFAULTS.rateMarginMs,
      onWait: (until, waitMs) => emit({ type: "wait", class: cls, reason: "rate-limit", until, waitMs }),
    });
  const limiters: Record<RequestClass, WindowLimiter> = {
    get: limiterFor("get"),
    write: limiterFor("write"),
    session: limiterFor("session"),
  };

  /** One request through pacing and retry; resolves to the last response. */
  async function exchange(ex: Exchange): Promise<HttpResponse> {
    const { request, cls, signal } = ex;
    const body = request.body === undefined ? undefined : JSON.stringify(request.body);
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (ex.cookie !== undefined) {
      scrubber.add(ex.cookie);
      headers.cookie = `${cookieName}=${ex.cookie}`;
    }
    let failures = 0;
    let rateLimited = 0;
    let waitedBefore = 0;
    for (let attempt = 1; ; attempt++) {
      const sent = await limiters[cls].run<Sent>(
        async (grant) => {
          if (attempt > 1) stats.retries++;
          if (cls === "get") stats.reads++;
          else if (cls === "write") stats.writes++;
          try {
            return { grant, response: await transport.request({ ...request, headers, body, signal }) };
          } catch (error) {
            if (!(error instanceof NetworkError || error instanceof TimeoutError)) throw error;
            return { grant, failure: error };
          }
        },
        { signal, refused: ({ response }) => response?.status === 429 },
      );
      const { grant, response, failure } = sent;
      const outcome: AttemptOutcome = response
        ? {
            kind: "status",
            status: response.status,
            retryAfterMs: parseRetryAfter(header(response, "retry-after"), clock.now()),
          }
        : { kind: failure instanceof TimeoutError ? "timeout" : "network-error" };
      emit({
        type: "response",
        class: cls,
        method: request.method,
        path: request.path,
        items: ex.items,
        status: outcome.kind === "status" ? outcome.status : outcome.kind,
        durationMs: clock.now() - grant.grantedAt,
        attempt,
        waitedMs: waitedBefore + grant.waitedMs,
      });
      if (response?.status === 429) {
        stats.rateLimited++;
        rateLimited++;
      } else if (!response || response.status >= 500) {
        failures++;
      }
      // A trickled answer is no blip: another attempt would hold the run for another deadline.
      if (failure instanceof TimeoutError && failure.trickling && ex.idempotent) throw failure;
      const decision = decideRetry({
        policy,
        method: request.method,
        idempotent: ex.idempotent,
        outcome,
        failures,
        rateLimited,
      });
      switch (decision.action) {
        case "none":
          return response!;
        case "retry": {
          emit({
            type: "wait",
            class: cls,
            reason: decision.reason,
            until: clock.now() + decision.waitMs,
            waitMs: decision.waitMs,
          });
          await clock.sleep(decision.waitMs, signal);
          waitedBefore = decision.waitMs;
          continue;
        }
        case "over-budget":
          throw new RetryBudgetError(request.method, request.path, decision.detail);
        case "give-up":
          if (failure) throw failure;
          if (response && response.status !== 429) throw apiError(request, response, scrubber);
          throw new RetryBudgetError(request.method, request.path, decision.detail);
        case "outcome-unknown":
          throw new OutcomeUnknownError(request.method, request.path, decision.detail, {
            cause: failure,
            answered: response !== undefined,
          });
      }
    }
  }

  /**
   * The parsed body of a 2xx answer, once it matches the contract's answer for the
   * operation: anything else is a ContractError (issues scrubbed: keys come from the server).
   */
  function trusted(request: ApiRequest, response: HttpResponse): unknown {
    const op = findOperation(request.method, request.path);
    const fail = (issues: ContractIssue[]) =>
      new ContractError(
        request.method,
        request.path,
        issues.map((i) => ({ at: scrubber.text(i.at), expected: i.expected })),
      );
    if (response.text.trim() === "") {
      if (op?.responseSchema === undefined) return undefined;
      throw fail([{ at: "/", expected: `a JSON body (${op.responseSchema}), got none` }]);
    }
    let body: unknown;
    try {
      body = JSON.parse(response.text);
    } catch {
      throw fail([{ at: "/", expected: "a JSON body, got text that is not JSON" }]);
    }
    const issues = op ? checkAnswer(op, body) : [];
    if (issues.length > 0) throw fail(issues);
    return body;
  }

  /** Spec, Authentication 2-3; G9. Paced by the session window; repeatable (a spare session is harmless). */
  async function login(signal?: AbortSignal): Promise<SessionToken> {
    const request = Endpoints.createSession(options.credentials);
    const sentAt = clock.now();
    const response = await exchange({ request, cls: "session", idempotent: true, items: 1, signal });
    if (response.status === 401) throw new CredentialsError(email, "401 Not Authorized at login");
    if (response.status < 200 || response.status >= 300) throw apiError(request, response, scrubber);
    const token = tokenFromSetCookie(response.headers["set-cookie"], cookieName);
    if (token !== undefined) scrubber.add(token);
    if (token === undefined) {
      throw new ApiError({
        status: response.status,
        apiMessage: isHtmlAnswer(response)
          ? HTML_ANSWER
          : `login answered without a ${cookieName} cookie: check connection.environment (${options.environment})`,
        method: request.method,
        path: request.path,
      });
    }
    trusted(request, response); // G9: the login answer is checked like any other.
    stats.logins++;
    // Counted from the send: the server's 8 hours start no earlier (spec, Authentication 5).
    return { token, expiresAt: sentAt + SESSION_LIFETIME_MS };
  }

  const session = new Session({
    origin,
    environment: options.environment,
    email,
    clock,
    cacheDir: options.sessionCache ? options.sessionCache.dir : undefined,
    login,
    onSession: (cached) => emit({ type: "login", email, cached }),
    onCacheError: (message) => emit({ type: "warning", message }),
  });

  async function send<T>(
    request: ApiRequest & { readonly __response?: T },
    sendOptions: SendOptions = {},
  ): Promise<T> {
    const { signal } = sendOptions;
    const cls = requestClass(request);
    const items = sendOptions.items ?? itemsOf(request);
    if (cls === "session") {
      // The password would pass through the caller's request value; logins stay in here.
      throw new TransportPolicyError(
        "sessions are managed by the client: do not send POST /api/session yourself",
      );
    }
    let cookie = await session.token(signal);
    for (let renewed = false; ; renewed = true) {
      // POST is safe to repeat only after a 429 (refused before handling, G10).
      const idempotent = request.method !== "POST";
      const response = await exchange({ request, cls, idempotent, items, cookie, signal });
      if (response.status === 401 || response.status === 403) {
        // G9: 403 means the token is unknown or expired: one fresh login, then retry.
        if (renewed) {
          throw new CredentialsError(
            email,
            `${request.method} ${request.path} answered ${response.status} with a session just created`,
          );
        }
        cookie = await session.renew(cookie, signal);
        continue;
      }
      if (response.status < 200 || response.status >= 300) throw apiError(request, response, scrubber);
      if (isHtmlAnswer(response)) {
        // A web page where the API should answer: say what it means rather than "not JSON".
        throw new ApiError({
          status: response.status,
          apiMessage: HTML_ANSWER,
          method: request.method,
          path: request.path,
        });
      }
      return trusted(request, response) as T;
    }
  }

  /** Chunks of at most 100 items, one transactional request each, in order (spec, Limits). */
  async function batches<I, O, R>(
    items: readonly I[],
    build: (chunk: I[]) => TypedRequest<O>,
    pick: (response: O) => R[],
    sendOptions?: SendOptions,
  ): Promise<R[]> {
    const out: R[] = [];
    for (let offset = 0; offset < items.length; offset += MAX_BATCH) {
      const chunk = items.slice(offset, offset + MAX_BATCH);
      try {
        out.push(...pick(await send(build(chunk), { ...sendOptions, items: chunk.length })));
      } catch (error) {
        if (error instanceof ApiError) throw error.withBatchOffset(offset);
        if (error instanceof OutcomeUnknownError && offset > 0) {
          throw new OutcomeUnknownError(error.method, error.path, error.reason, {
            cause: error.cause,
            batchOffset: offset,
            answered: error.answered,
          });
        }
        throw error;
      }
    }
    return out;
  }

  return {
    send,
    getInsertionOrders: (ids, o) =>
      readByValues(send, Endpoints.insertionOrders, { field: "id", values: ids, options: o }),
    listCampaignsByInsertionOrder: (ids, { includeProgress, ...o } = {}) =>
      readByValues(send, Endpoints.campaigns, {
        field: "insertion_order_id",
        values: ids,
        query: includeProgress ? ({ includeProgress } as CampaignListQuery) : {},
        options: o,
      }),
    getCampaigns: (ids, o) =>
      readByValues(send, Endpoints.campaigns, { field: "id", values: ids, options: o }),
    getTargetings: async (campaignIds, o) => {
      const unique = [...new Set(campaignIds)];
      const lists = await Promise.all(unique.map((id) => send(Endpoints.getTargetings(id), o)));
      return new Map(unique.map((id, i) => [id, lists[i]?.targetings ?? []]));
    },
    getCreatives: (ids, o) =>
      readByValues(send, Endpoints.creatives, { field: "id", values: ids, options: o }),
    listCreativesByCampaign: (ids, o) =>
      readByValues(send, Endpoints.creatives, { field: "campaign_ids", values: ids, options: o }),
    getCreativeCategories: (ids, o) => readCreativeCategories(send, ids, o),
    getAdvertisers: (ids, o) =>
      readByValues(send, Endpoints.advertisers, { field: "id", values: ids, options: o }),
    patchInsertionOrders: (items, o) =>
      batches(items, Endpoints.patchInsertionOrders, (r) => r.insertion_orders, o),
    createCampaigns: (items, o) => batches(items, Endpoints.createCampaigns, (r) => r.campaigns, o),
    patchCampaigns: (items, o) => batches(items, Endpoints.patchCampaigns, (r) => r.campaigns, o),
    putTargetings: async (campaignId, targetings, o) =>
      (await send(Endpoints.putTargetings(campaignId, targetings), o)).targetings,
    patchCreatives: (items, o) => batches(items, Endpoints.patchCreatives, (r) => r.creatives, o),
    on: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stats: () => ({ ...stats }),
    close: () => transport.close(),
  };
}
