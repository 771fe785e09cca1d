/** `createDspClient`, the one way doohctl talks to the DSP, wires the layers (docs/api-client.md). */

import { DEFAULT_DIALECT } from "../model/dialect.js";
import { Scrubber } from "../model/scrub.js";
import { sessionCookieName } from "../model/wire.js";
import { answerOf } from "./answer.js";
import { withDefaults } from "./defaults.js";
import { endpointsFor } from "./endpoints.js";
import { TransportPolicyError } from "./errors.js";
import { paced } from "./layers/paced.js";
import { retrying } from "./layers/retrying.js";
import { withSession } from "./layers/session-layer.js";
import { login } from "./login.js";
import { dspReaders } from "./readers.js";
import { exchangeOf, itemsOf, NotSent, requestClass, type Send } from "./send.js";
import { Session } from "./session.js";
import { checkOrigin, Transport } from "./transport.js";
import type { ApiEvent, ApiRequest, ClientStats, DspClient, DspClientOptions, SendOptions } from "./types.js";

export function createDspClient(options: DspClientOptions): DspClient {
  const origin = checkOrigin(options.apiOrigin); // G13: before any connection
  const { clock, concurrency, timeouts, policy, ...settings } = withDefaults(options);
  const { credentials, environment } = options;
  const dialect = options.dialect ?? DEFAULT_DIALECT;
  const endpoints = endpointsFor(dialect);
  const cookieName = sessionCookieName(environment);
  // Knows the password now and every token once it is sent or received.
  const scrubber = new Scrubber([credentials.password], { email: credentials.email });
  const transport = new Transport({
    scrub: (text) => scrubber.text(text),
    origin,
    connectTimeoutMs: timeouts.connectMs,
    requestTimeoutMs: timeouts.requestMs,
    connections: concurrency.get + concurrency.write + concurrency.session,
    maxResponseBytes: settings.maxResponseBytes,
    ca: options.ca,
  });
  const listeners = new Set<(event: ApiEvent) => void>();
  const emit = (event: ApiEvent) => {
    for (const listener of listeners) listener(event);
  };
  const stats: ClientStats = { reads: 0, writes: 0, logins: 0, retries: 0, rateLimited: 0 };

  const overTransport: Send = (exchange) =>
    transport.request({
      ...exchange.request,
      headers: exchange.headers,
      body: exchange.body,
      signal: exchange.signal,
    });
  const belowSession = retrying({ policy, clock, scrubber, emit, stats })(
    paced({
      rateLimits: settings.rateLimits,
      concurrency,
      clock,
      marginMs: settings.rateMarginMs,
      pacingLog: options.pacingLog,
      emit,
      stats,
      requestTimeoutMs: timeouts.requestMs,
    })(overTransport),
  );
  const session = new Session({
    origin,
    environment,
    email: credentials.email,
    clock,
    cacheDir: options.sessionCache ? options.sessionCache.dir : undefined,
    login: (signal) =>
      login(
        {
          send: belowSession,
          credentials,
          environment,
          cookieName,
          clock,
          scrubber,
          stats,
          onLogin: options.onLogin,
          tls: () => transport.tls(),
        },
        signal,
      ),
    onSession: (cached) => emit({ type: "login", email: credentials.email, cached }),
    onCacheError: (message) => emit({ type: "warning", message }),
  });
  const inSession = withSession({ session, cookieName, scrubber, email: credentials.email })(belowSession);

  async function send<T>(
    request: ApiRequest & { readonly __response?: T },
    sendOptions: SendOptions = {},
  ): Promise<T> {
    if (requestClass(request) === "session") {
      // The password would pass through the caller's request value; logins stay in here.
      throw new TransportPolicyError(
        "sessions are managed by the client: do not send POST /api/session yourself",
      );
    }
    // POST is safe to repeat only after a 429 (refused before handling, G10).
    const idempotent = request.method !== "POST";
    const items = sendOptions.items ?? itemsOf(request);
    const exchange = exchangeOf(request, {
      idempotent,
      items,
      signal: sendOptions.signal,
      beforeSend: sendOptions.beforeSend,
    });
    const response = await inSession(exchange).catch((error: unknown) => {
      throw error instanceof NotSent ? error.reason : error;
    });
    if (sendOptions.raw && request.method !== "GET") {
      throw new TransportPolicyError("only a GET's answer may be read raw");
    }
    return answerOf(request, response, scrubber, {
      dialect,
      raw: sendOptions.raw === true,
      ...(options.onUnknownMembers ? { onUnknownMembers: options.onUnknownMembers } : {}),
    }) as T;
  }

  return {
    send,
    dialect,
    endpoints,
    ...dspReaders(send, endpoints, dialect),
    on: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    accountId: (signal) => session.accountId(signal),
    stats: () => ({ ...stats }),
    openSession: async (signal) => {
      await session.token(signal);
    },
    close: () => transport.close(),
  };
}
