/**
 * The one secret scrubber: the client, the config guard (src/config/guard-text.ts) and the
 * CLI (src/cli/config-secrets.ts) all replace the secrets they know with it.
 *
 * The client's secrets (the password, every session token it sent) are scrubbed out of text
 * the server wrote, before that text becomes part of an error or an event. A server may echo
 * the request body of a failed login (the password) or the Cookie header (the token) in an
 * error `message` or in `data`, raw or escaped (echo-forms.ts: JSON, `\u`, HTML, URL, any
 * case, base64 of the password and of `email:password`); scrubbing here, at the client's
 * boundary, means nothing downstream (terminal, journal, plan file, JSON result) can print
 * it. Text is scrubbed whole before any cut (`excerpt`): a cut first could leave half a
 * secret that no longer matches.
 */

import { base64Forms, echoPattern } from "./echo-forms.js";
import type { ApiFieldError } from "./wire.js";

export const REDACTED = "[redacted]";

interface Pattern {
  /** The length of what it stands for: longer ones are replaced first. */
  length: number;
  regex: RegExp;
  /**
   * The text itself, lower-cased when matched in any case; undefined when its case forms are
   * not one to one (beyond ASCII), so that only the regular expression can tell.
   */
  literal: string | undefined;
  caseless: boolean;
}

/**
 * Every echo form but the literal one starts with a backslash, `&`, `%` or `+` (echo-forms.ts):
 * a text without them can hold a secret only as itself, which a plain search finds. The
 * patterns of a long session token are large, and compiling one costs up to seconds: most
 * texts never need it.
 */
const ESCAPED = /[\\&%+]/;

const ASCII = /^\p{ASCII}*$/u;

function pattern(text: string, caseless: boolean): Pattern {
  const literal = ASCII.test(text) ? (caseless ? text.toLowerCase() : text) : undefined;
  return { length: text.length, regex: echoPattern(text, { caseless }), literal, caseless };
}

/** Whether `p` may match `text`: false only where a plain search proves it cannot. */
function mayMatch(p: Pattern, text: string, lower: () => string): boolean {
  if (p.literal === undefined || ESCAPED.test(text)) return true;
  return (p.caseless ? lower() : text).includes(p.literal);
}

export interface ScrubberOptions {
  /** The login email: base64 of `email:password` (an HTTP Basic credential) is scrubbed too. */
  email?: string | undefined;
}

export class Scrubber {
  private readonly secrets = new Set<string>();
  private patterns: Pattern[] = [];
  private readonly email: string | undefined;

  constructor(secrets: readonly string[] = [], options: ScrubberOptions = {}) {
    this.email = options.email;
    for (const secret of secrets) this.add(secret);
  }

  /** A secret to scrub from now on (the empty string is nothing to hide). */
  add(secret: string): void {
    if (secret === "" || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    const encoded = [secret, ...(this.email !== undefined ? [`${this.email}:${secret}`] : [])].flatMap(
      base64Forms,
    );
    const added: Pattern[] = [pattern(secret, true), ...encoded.map((text) => pattern(text, false))];
    // Longest first, so a secret containing another is replaced whole.
    this.patterns = [...this.patterns, ...added].sort((a, b) => b.length - a.length);
  }

  text(text: string): string {
    let out = text;
    let lowered: string | undefined;
    for (const p of this.patterns) {
      if (!mayMatch(p, out, () => (lowered ??= out.toLowerCase()))) continue;
      out = out.replace(p.regex, REDACTED);
      lowered = undefined;
    }
    return out;
  }

  /** At most `max` characters of `text`, scrubbed whole first (a cut never halves a secret). */
  excerpt(text: string, max: number): string {
    return this.text(text).slice(0, max);
  }

  fields(data: readonly ApiFieldError[]): ApiFieldError[] {
    return data.map((d) => ({ field: this.text(d.field), messages: d.messages.map((m) => this.text(m)) }));
  }
}
