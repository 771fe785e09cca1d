/**
 * What a config message may quote of a file (docs/safety.md, Files and the tree): the token at
 * fault, cut short, never a value that looks like a credential. A message may end in a public
 * pull-request comment, and the file may be what a link pointed at (`/proc/self/environ`).
 * Every ConfigError passes its issues through `guardIssue` (issues.ts): none slips past.
 */
import { Scrubber } from "../model/scrub.js";

export const NOT_SHOWN = "[credential not shown]";

/** The longest quoted token kept whole; a longer one is cut, saying how long it was. */
const QUOTE_MAX = 80;
const QUOTE_KEEP = 48;
const QUOTED_RUN = new RegExp(`"((?:[^"\\\\\\n]|\\\\.){${QUOTE_MAX + 1},})"`, "g");

const SECRET_NAME =
  "[A-Za-z0-9_.-]*(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential|auth(?:orization)?|cookie|session[_-]?id)[A-Za-z0-9_.-]*";

const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  // NAME=value, NAME: value, "NAME":"value", where NAME names a secret (an environment dump).
  new RegExp(`(${SECRET_NAME}\\\\?"?\\s*(?:=|:\\s?)\\s*\\\\?"?)[^\\s"\\\\,;&\\p{Cc}]+`, "giu"),
  // A PEM private key, from its header on.
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*/g,
  // An Authorization header's value.
  /\b((?:bearer|basic)\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
  // Tokens whose form gives them away: GitHub, GitLab, AWS, Slack, JWT.
  /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|glpat-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{10,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+)/g,
  // URL user information (user:password@host).
  /(\b[a-z][a-z0-9+.-]*:\/\/)(?!\*+@)[^\s/@"]+(?=@)/gi,
];

/**
 * 24 or more letters, digits and `+/=` mixing cases and digits that change kind at nearly every
 * other character, as random keys do (6 in 10); camel case (`Q4HolidayCampaignMalls2026`) stays.
 */
const RANDOM_LOOKING = /[A-Za-z0-9+/=]{24,}/g;

function randomLooking(run: string): boolean {
  if (!/[A-Z]/.test(run) || !/[a-z]/.test(run) || !/[0-9]/.test(run)) return false;
  const kind = (c: string) =>
    c >= "a" && c <= "z" ? 0 : c >= "A" && c <= "Z" ? 1 : c >= "0" && c <= "9" ? 2 : 3;
  let changes = 0;
  for (let i = 1; i < run.length; i++) if (kind(run[i]!) !== kind(run[i - 1]!)) changes++;
  return changes / (run.length - 1) >= 0.45;
}

/** `text` with every part that looks like a credential replaced by NOT_SHOWN. */
export function withoutCredentials(text: string): string {
  let out = text;
  for (const pattern of CREDENTIAL_PATTERNS) {
    out = out.replace(
      pattern,
      (_match, kept: unknown) => `${typeof kept === "string" ? kept : ""}${NOT_SHOWN}`,
    );
  }
  return out.replace(RANDOM_LOOKING, (run) => (randomLooking(run) ? NOT_SHOWN : run));
}

/** Whether a value from a file looks like a credential, so that no message may quote it. */
export function looksLikeCredential(value: string): boolean {
  return withoutCredentials(value) !== value;
}

/** Long quoted runs (and runs without white space) cut to their start, saying how long they were. */
export function cutQuotes(text: string): string {
  const cut = (run: string, quote: string) =>
    `${run.slice(0, QUOTE_KEEP)}…${quote} (${run.length} characters)`;
  return text
    .replace(QUOTED_RUN, (_m, run: string) => `"${cut(run, '"')}`)
    .replace(/[^\s"]{121,}/g, (run) => cut(run, ""));
}

/** Secrets are replaced (in every form src/model/scrub.ts knows) before anything is cut. */
function guardText(text: string, secrets: Scrubber): string {
  return cutQuotes(withoutCredentials(secrets.text(text)));
}

/** What of an issue (src/config/issues.ts) reaches a message: structural, so no import comes back. */
interface GuardedText {
  message: string;
  hint?: string | undefined;
  path: string;
}

/** The issue as a message may show it: `secrets` (the run's password) first, then the guard. */
export function guardIssue<Issue extends GuardedText>(
  issue: Issue,
  secrets: readonly string[] | Scrubber = [],
): Issue {
  const scrubber = secrets instanceof Scrubber ? secrets : new Scrubber(secrets);
  const message = guardText(issue.message, scrubber);
  const hint = issue.hint === undefined ? undefined : guardText(issue.hint, scrubber);
  // The path is made of the file's own keys: a secret pasted as a key shows there too.
  const path = guardText(issue.path, scrubber);
  if (message === issue.message && hint === issue.hint && path === issue.path) return issue;
  return { ...issue, path, message, ...(hint === undefined ? {} : { hint }) };
}
