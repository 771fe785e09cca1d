/**
 * A pixel URL as doohctl writes it: `http(s)://`, a host, no white space, readable by WHATWG `URL`
 * as the API's `URL` type is (docs/assumptions.md#g6). Serve-time macros (`{cachebuster}`,
 * `[timestamp]`, `%%CB%%`) are accepted.
 */
export function httpUrlProblem(text: string): string | undefined {
  if (!/^https?:\/\//i.test(text)) return "is not an absolute http or https URL";
  const space = /\s/.exec(text)?.[0];
  if (space !== undefined) {
    return `holds white space (${JSON.stringify(space)}), which a URL cannot (encode a space as %20)`;
  }
  const control = /\p{Cc}/u.exec(text)?.[0];
  if (control !== undefined) {
    return `holds a control character (${JSON.stringify(control)}), which a URL cannot`;
  }
  // `https:///p` reads as the host "p" to a browser; here it is a slash too many.
  if (/^https?:\/\/(?:[/?#]|$)/i.test(text)) return "has no host after the `//`";
  if (!URL.canParse(text)) return "is not a URL the API can read (check the host and port)";
  const { username, password } = new URL(text);
  if (username !== "" || password !== "") {
    return "carries a user name or password (`user:password@`), which every screen firing the pixel would send: leave them out";
  }
  return undefined;
}

export function isHttpUrl(text: string): boolean {
  return httpUrlProblem(text) === undefined;
}

/**
 * `text` with anything between `scheme://` and the host's `@` masked, parseable or not. A
 * password may hold a `/` (`u:s3/cret@host`): a `:` before the first `/` makes all up to the last
 * `@` user info. It may mask more than a password (`host:8080/a@b`), never less.
 */
export function withoutUserinfo(text: string): string {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(text)?.[0] ?? "";
  const rest = text.slice(scheme.length);
  const end = rest.search(/[?#\s]/);
  const at = (end === -1 ? rest : rest.slice(0, end)).lastIndexOf("@");
  if (at === -1) return text;
  const before = rest.slice(0, at);
  const slash = before.indexOf("/");
  const colon = before.indexOf(":");
  const userinfo = slash === -1 || (colon !== -1 && colon < slash);
  return userinfo ? `${scheme}***${rest.slice(at)}` : text;
}

const LOOPBACK_V4 = /^127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$/;

/** G13: `localhost`, 127.0.0.0/8 and [::1] are loopback. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || LOOPBACK_V4.test(hostname);
}

/**
 * The origin meant by a host written without its scheme (`dsp.example.com`,
 * `127.0.0.1:8787`): https, or http for a loopback address (a local emulator, G13).
 * Undefined when `text` is not a bare host and port.
 */
export function originWithScheme(text: string): string | undefined {
  const bare = /^(\[[0-9A-Fa-f:]+\]|[A-Za-z0-9.-]+)(?::([0-9]{1,5}))?$/.exec(text);
  if (bare === null || Number(bare[2] ?? 0) > 65535) return undefined;
  return `${isLoopbackHost(bare[1]!.toLowerCase()) ? "http" : "https"}://${text}`;
}

/** G13, the one rule for an API origin: https, or http to loopback; config and client word it. */
export type OriginVerdict =
  | { ok: true; origin: string }
  | { ok: false; problem: "no-scheme"; meant: string }
  | { ok: false; problem: "not-a-url" }
  | { ok: false; problem: "credentials" }
  | { ok: false; problem: "not-http"; protocol: string }
  | { ok: false; problem: "has-path"; origin: string }
  | { ok: false; problem: "plain-http"; host: string };

export function originVerdict(text: string): OriginVerdict {
  // `localhost:8787` even parses, as the scheme "localhost:".
  const meant = originWithScheme(text);
  if (meant !== undefined) return { ok: false, problem: "no-scheme", meant };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, problem: "not-a-url" };
  }
  // `new URL(...).origin` would drop them silently, and a login must not sit in a config file.
  if (url.username !== "" || url.password !== "") return { ok: false, problem: "credentials" };
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return { ok: false, problem: "not-http", protocol: url.protocol };
  }
  if ((url.pathname !== "/" && url.pathname !== "") || url.search !== "" || url.hash !== "") {
    return { ok: false, problem: "has-path", origin: url.origin };
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    return { ok: false, problem: "plain-http", host: url.host };
  }
  return { ok: true, origin: url.origin };
}
