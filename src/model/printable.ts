/**
 * Text from a config file or from the DSP, made safe to print in a terminal, a CI log or a
 * pull-request comment. Control characters (an escape sequence that recolours or clears
 * the screen, a carriage return or line break that forges a line of output), bidi and other
 * format characters (which reorder or hide text), and line and paragraph separators are
 * shown as escapes (`\u001b`, `\n`, `\u202e`) instead of acting. A zero-width joiner stays:
 * it only joins emoji (`👩‍💻`).
 */
export function printable(text: string): string {
  UNPRINTABLE.lastIndex = 0;
  return UNPRINTABLE.test(text) ? text.replace(UNPRINTABLE, escaped) : text;
}

const UNPRINTABLE = /(?!\u200d)[\p{Cc}\p{Cf}\u2028\u2029]/gu;

const SHORT: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escaped(char: string): string {
  const short = SHORT[char];
  if (short !== undefined) return short;
  const code = char.codePointAt(0)!;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
}
