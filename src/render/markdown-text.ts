/**
 * The one rule for text in the Markdown doohctl writes: names and messages, which may come from the
 * DSP, render as the text they are, never as markup, by GitHub's rules (GFM, then its mention and
 * autolink filters). Control and bidi characters are escapes first (printable).
 */
import { printable } from "../model/printable.js";

/**
 * Backslash escapes for what starts markup in a line: emphasis, code spans, links, strikethrough, a
 * cell's end (`|`), the escape itself; `_` inside a word (`budget_money`) is no emphasis.
 */
const MARKUP = /[\\`*[\]~|]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
const HTML: Record<string, string> = { "<": "&lt;", "&": "&amp;" };

/**
 * What GitHub (and GitLab) read as a reference: `@name`, `#123`, `GH-123`, `owner/repo#123`, `!123`.
 * A zero-width space as a character reference (`&#8203;`) after the sigil breaks each.
 */
const REFERENCE = /@|[#!](?=\d)|\bGH-(?=\d)/gi;

/**
 * Text for a table cell or prose: `<` and `&` are entities (no tag, no character reference); a
 * bare URL or `www.` is broken by an escape (no autolink); a reference is broken (no mention, e-mail
 * link or issue link).
 */
export function cell(text: string): string {
  return printable(text)
    .replace(MARKUP, (c) => `\\${c}`)
    .replace(/[<&]/g, (c) => HTML[c] ?? c)
    .replace(/:(?=\/\/)/g, "\\:")
    .replace(/(w{3})\./gi, "$1\\.")
    .replace(REFERENCE, "$&&#8203;");
}

/**
 * A code span (account names, file paths): a backtick would end it, so it shows as `'`; `inTable`
 * escapes `|`, which GitHub reads as a cell's end even in a code span.
 */
export function code(text: string, options: { inTable?: boolean } = {}): string {
  const inner = printable(text).replace(/`/g, "'");
  return `\`${options.inTable ? inner.replace(/\|/g, "\\|") : inner}\``;
}
