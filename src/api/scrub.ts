/**
 * Secrets the client knows (the password, every session token it sent) scrubbed out of text
 * the server wrote, before that text becomes part of an error or an event. A server may echo
 * the request body of a failed login (the password) or the Cookie header (the token) in an
 * error `message` or in `data`; scrubbing here, at the client's boundary, means nothing
 * downstream (terminal, journal, plan file, JSON result) can print it.
 */
import type { ApiFieldError } from "../model/wire.js";

export const REDACTED = "[redacted]";

const jsonEscaped = (text: string) => JSON.stringify(text).slice(1, -1);

/**
 * The forms a secret takes when echoed: as sent, JSON-escaped once or twice (a body quoted
 * inside a JSON string), URL-encoded.
 */
function forms(secret: string): string[] {
  const url = encodeURIComponent(secret);
  return [secret, jsonEscaped(secret), jsonEscaped(jsonEscaped(secret)), url, url.replaceAll("%20", "+")];
}

export class Scrubber {
  private readonly secrets = new Set<string>();
  private patterns: string[] = [];

  constructor(secrets: readonly string[] = []) {
    for (const secret of secrets) this.add(secret);
  }

  /** A secret to scrub from now on (the empty string is nothing to hide). */
  add(secret: string): void {
    if (secret === "" || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    // Longest first, so a secret containing another is replaced whole.
    this.patterns = [...new Set([...this.secrets].flatMap(forms))].sort((a, b) => b.length - a.length);
  }

  text(text: string): string {
    let out = text;
    for (const pattern of this.patterns) out = out.replaceAll(pattern, REDACTED);
    return out;
  }

  fields(data: readonly ApiFieldError[]): ApiFieldError[] {
    return data.map((d) => ({ field: this.text(d.field), messages: d.messages.map((m) => this.text(m)) }));
  }
}
