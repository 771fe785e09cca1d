/**
 * What a login showed about G9 and G13, for `doohctl doctor`: the cookies' names and attributes
 * (a value is dropped as the header is read), status, body members and TLS. Never a secret.
 */

/** The TLS a connection negotiated (G13); here, not in transport.ts, so nothing imports types.ts back. */
export interface TlsSeen {
  protocol: string;
  cipher: string;
}

export interface CookieSeen {
  name: string;
  /** Attributes as sent, lower-cased names (`secure`, `httponly`, `path=/`, `expires=...`). */
  attributes: Map<string, string | true>;
}

export interface LoginSeen {
  status: number;
  cookies: CookieSeen[];
  /** The JSON body when it is an object; undefined when not JSON. */
  body: Record<string, unknown> | undefined;
  /** Undefined over plain HTTP. */
  tls: TlsSeen | undefined;
  /** Clock time the login was sent, for the cookie's expiry. */
  sentAt: number;
}

/** `name=value; Attr; Attr=x` -> the name and the attributes; the value is dropped at once. */
export function parseSetCookie(header: string): CookieSeen {
  const [pair = "", ...attributes] = header.split(";");
  const name = pair.slice(0, Math.max(0, pair.indexOf("="))).trim();
  const seen = new Map<string, string | true>();
  for (const attribute of attributes) {
    const eq = attribute.indexOf("=");
    if (eq < 0) seen.set(attribute.trim().toLowerCase(), true);
    else seen.set(attribute.slice(0, eq).trim().toLowerCase(), attribute.slice(eq + 1).trim());
  }
  return { name, attributes: seen };
}

/** The login answer as `LoginSeen`. */
export function loginSeen(
  response: { status: number; headers: Record<string, string | string[] | undefined>; text: string },
  tls: TlsSeen | undefined,
  sentAt: number,
): LoginSeen {
  const header = response.headers["set-cookie"];
  const headers = header === undefined ? [] : Array.isArray(header) ? header : [header];
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.text);
  } catch {
    parsed = undefined;
  }
  return {
    status: response.status,
    cookies: headers.map(parseSetCookie),
    body:
      typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : undefined,
    tls,
    sentAt,
  };
}
