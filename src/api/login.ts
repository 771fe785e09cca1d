/**
 * Logging in (spec, Authentication 2-3; G9): `POST /api/session` through the retry and pacing
 * layers (repeatable: a spare session is harmless), and the token of the environment's cookie.
 */
import type { Clock } from "../model/clock.js";
import type { Scrubber } from "../model/scrub.js";
import { type Environment, SESSION_LIFETIME_MS } from "../model/wire.js";
import { apiError, trustedBody } from "./answer.js";
import { Endpoints } from "./endpoints.js";
import { ApiError, CredentialsError } from "./errors.js";
import { HTML_ANSWER, isHtmlAnswer } from "./html.js";
import { type LoginSeen, loginSeen, type TlsSeen } from "./login-seen.js";
import { exchangeOf, type Send } from "./send.js";
import { type SessionToken, tokenFromSetCookie } from "./session.js";
import type { ClientStats, Credentials } from "./types.js";

export interface LoginOptions {
  /** The layers below the session: retrying and paced. */
  send: Send;
  credentials: Credentials;
  environment: Environment;
  cookieName: string;
  clock: Clock;
  scrubber: Scrubber;
  stats: ClientStats;
  /** Told what each login showed (doctor: one login per run); never a cookie value. */
  onLogin?: ((seen: LoginSeen) => void) | undefined;
  /** The TLS of the latest connection (transport.ts), for `onLogin`. */
  tls?: (() => TlsSeen | undefined) | undefined;
}

export async function login(options: LoginOptions, signal?: AbortSignal): Promise<SessionToken> {
  const { credentials, cookieName, scrubber } = options;
  const request = Endpoints.createSession(credentials);
  const sentAt = options.clock.now();
  const response = await options.send(exchangeOf(request, { idempotent: true, items: 1, signal }));
  options.onLogin?.(loginSeen(response, options.tls?.(), sentAt));
  if (response.status === 401) throw new CredentialsError(credentials.email, "401 Not Authorized at login");
  if (response.status < 200 || response.status >= 300) throw apiError(request, response, scrubber);
  const token = tokenFromSetCookie(response.headers["set-cookie"], cookieName);
  if (token !== undefined) scrubber.add(token);
  if (token === undefined) {
    throw new ApiError({
      status: response.status,
      apiMessage: isHtmlAnswer(response)
        ? HTML_ANSWER
        : `but set no ${cookieName} session cookie: check connection.environment (${options.environment}), the user may belong to the other environment`,
      method: request.method,
      path: request.path,
    });
  }
  // G9: the login answer is checked like any other; its account_id keys the recovery record.
  const body = trustedBody(request, response, scrubber) as { account_id?: unknown } | undefined;
  const accountId = body?.account_id;
  if (typeof accountId !== "string" || accountId === "") {
    throw new ApiError({
      status: response.status,
      apiMessage: "but named no account_id (G9): doohctl cannot tell which account's recovery record to read",
      method: request.method,
      path: request.path,
    });
  }
  options.stats.logins++;
  // Counted from the send: the server's 8 hours start no earlier (spec, Authentication 5).
  return { token, expiresAt: sentAt + SESSION_LIFETIME_MS, accountId };
}
