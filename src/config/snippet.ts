/**
 * The line of the config an issue is about, a caret under its column (as rustc shows it), for a
 * person at a terminal only (src/cli/errors.ts). It quotes the file, so it follows
 * guard-text.ts: no line holding a credential-like value or a secret of the run; a long line
 * cut around the caret; escapes shown (printable.ts), the caret counted on them.
 */
import { printable } from "../model/printable.js";
import { Scrubber } from "../model/scrub.js";
import { looksLikeCredential } from "./guard-text.js";

/** Kept around the caret of a long line: with the gutter, 80 columns, so no terminal moves the caret. */
const WHOLE = 72;
const BEFORE = 36;
const AFTER = 30;

export function sourceSnippet(
  text: string,
  line: number,
  column: number,
  secrets: Scrubber = new Scrubber(),
): string[] | undefined {
  if (line < 1) return undefined;
  const source = lineAt(text, line);
  if (source === undefined || source.trim() === "") return undefined;
  if (looksLikeCredential(source) || secrets.text(source) !== source) return undefined;
  const at = Math.min(Math.max(column - 1, 0), source.length);
  const whole = printable(source).length <= WHOLE;
  const start = whole || at <= BEFORE ? 0 : at - BEFORE;
  const end = whole ? source.length : Math.min(source.length, start + BEFORE + AFTER);
  const head = start > 0 ? "…" : "";
  const shown = `${head}${printable(source.slice(start, end))}${end < source.length ? "…" : ""}`;
  const caret = [...`${head}${printable(source.slice(start, at))}`].length;
  const gutter = " ".repeat(String(line).length);
  return [`${gutter} |`, `${line} | ${shown}`, `${gutter} | ${" ".repeat(caret)}^`];
}

/** Line `line` (1-based) of `text`, without its line break; undefined past the end. */
function lineAt(text: string, line: number): string | undefined {
  let start = 0;
  for (let n = 1; n < line; n++) {
    const next = text.indexOf("\n", start);
    if (next === -1) return undefined;
    start = next + 1;
  }
  const end = text.indexOf("\n", start);
  return text.slice(start, end === -1 ? text.length : end).replace(/\r$/, "");
}
