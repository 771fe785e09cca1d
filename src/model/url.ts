/**
 * Pixel URLs as doohctl writes them to the API: `http://` or `https://`, a host, no white
 * space, and readable by WHATWG `URL`, as the API's `URL` type is read (dsp-api.md,
 * Creative). Ad-server macros that a tracker fills in at serve time (`{cachebuster}`,
 * `[timestamp]`, `%%CB%%`) are part of many real pixel URLs and are accepted.
 */
export function httpUrlProblem(text: string): string | undefined {
  if (!/^https?:\/\//i.test(text)) return "is not an absolute http or https URL";
  const space = /\s/.exec(text)?.[0];
  if (space !== undefined)
    return `holds white space (${JSON.stringify(space)}), which a URL cannot (encode a space as %20)`;
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

/** `text` with anything between `scheme://` and the host's `@` replaced, parseable or not. */
export function withoutUserinfo(text: string): string {
  return text.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?[^/?#\s]*@/, "$1***@");
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
  const bare = /^(\[[0-9A-Fa-f:]+\]|[A-Za-z0-9.-]+)(?::[0-9]{1,5})?$/.exec(text);
  if (bare === null) return undefined;
  return `${isLoopbackHost(bare[1]!.toLowerCase()) ? "http" : "https"}://${text}`;
}
