/**
 * The session layer (spec, Authentication; G9): every request carries the session cookie; a
 * 401 or 403 gets one fresh login and one more try, and a refused fresh session is a CredentialsError.
 */
import type { Scrubber } from "../../model/scrub.js";
import { CredentialsError } from "../errors.js";
import type { Layer } from "../send.js";
import type { Session } from "../session.js";

export interface SessionLayerOptions {
  session: Session;
  /** `tr-production` or `tr-staging` (spec, Authentication 3). */
  cookieName: string;
  /** Told every token sent, so no echo of it is ever shown. */
  scrubber: Scrubber;
  email: string;
}

export function withSession({ session, cookieName, scrubber, email }: SessionLayerOptions): Layer {
  return (next) => async (exchange) => {
    const { request, signal } = exchange;
    let cookie = await session.token(signal);
    for (let renewed = false; ; renewed = true) {
      scrubber.add(cookie);
      const response = await next({
        ...exchange,
        headers: { ...exchange.headers, cookie: `${cookieName}=${cookie}` },
      });
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
      return response;
    }
  };
}
