/**
 * Text that must show, never act, on a terminal, a CI log or a PR comment
 * (ARCHITECTURE.md#output-at-the-boundary): a control or format character (an escape sequence,
 * a bidi override, a zero-width joiner) or a line separator is shown as an escape (`\u001b`,
 * `\r`) that JSON and a double-quoted YAML scalar read back as the same character.
 */

const ACTING = /[\p{Cc}\p{Cf}\u2028\u2029]/u;
const ACTING_ALL = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;
/** The same but a line feed: doohctl's own line structure, which the boundary leaves alone. */
const ACTING_IN_LINES = /(?!\n)[\p{Cc}\p{Cf}\u2028\u2029]/gu;

const SHORT: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** `\u001b`; a character beyond U+FFFF as its UTF-16 pair (`\udb40\udc41`), as JSON writes it. */
function escaped(char: string): string {
  const short = SHORT[char];
  if (short !== undefined) return short;
  let out = "";
  for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return out;
}

/** Whether `text` holds a character that acts on a reader (a line feed included). */
export function acts(text: string): boolean {
  return ACTING.test(text);
}

/** A value inside a line (a name, a DSP's message): a line feed escaped too, so it starts no line. */
export function printable(text: string): string {
  return text.replace(ACTING_ALL, escaped);
}

/**
 * doohctl's own sequences (colour, a progress redraw) are marked with a token drawn anew by each
 * process, which outside text cannot hold and so never forges; `terminalText` restores them.
 */
const TOKEN = `own${globalThis.crypto.randomUUID().replace(/-/g, "")}`;
const MARK = new RegExp(`${TOKEN}([0-9a-f]{1,6});`, "g");

/** `sequence` (`\u001b[31m`, `\r`) as doohctl's own: it passes the boundary and acts. */
export function own(sequence: string): string {
  return sequence.replace(ACTING_ALL, (char) => `${TOKEN}${char.codePointAt(0)!.toString(16)};`);
}

/**
 * The boundary: whatever doohctl writes to stdout or stderr, in any format, passes here once
 * (`atBoundary`, src/cli/io.ts). Every acting character but a line feed is shown as an
 * escape, wherever it came from; then doohctl's own sequences (`own`) are restored.
 */
export function terminalText(text: string): string {
  const shown = text.replace(ACTING_IN_LINES, escaped);
  return shown.includes(TOKEN)
    ? shown.replace(MARK, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    : shown;
}
