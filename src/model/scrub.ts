/**
 * The one secret scrubber (the client, src/config/guard-text.ts, src/cli/config-secrets.ts). A
 * server may echo the password or a session token, raw or escaped (echo-forms.ts), in an error's
 * `message` or `data`: scrubbed at the client's boundary, nothing downstream (terminal, journal,
 * plan, JSON) can print it. Text is scrubbed whole before any cut, or half a secret survives.
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
 * Every escaped form starts with a backslash, `&`, `%` or `+`: a text without them holds a secret
 * only as itself, which a plain search finds, sparing a pattern that takes seconds to compile.
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
