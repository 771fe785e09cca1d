/**
 * The line of the config an issue is about, with a caret under its column, as rustc and
 * Terraform show a diagnostic:
 *
 *        |
 *     10 |         creatives: ["9101"
 *        |                    ^
 *
 * Shown only in text for a person at a terminal (src/cli/errors.ts), never in JSON. It quotes
 * the file, so it follows guard-text.ts: no snippet of a line that holds a credential-like
 * value (`password: …`, a token) or one of the run's secrets, and a long line is cut to the
 * part around the caret. Control characters are shown escaped (printable.ts), and the caret
 * counted on that escaped text, so that it stays under its character.
 */
import { printable } from "../model/printable.js";
import { Scrubber } from "../model/scrub.js";
import { looksLikeCredential } from "./guard-text.js";

/**
 * Characters kept before and after the caret on a long line: with the gutter, a snippet fits
 * in 80 columns, so that a terminal never breaks it and moves the caret off its character.
 */
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
