/**
 * The one rule for text in the Markdown doohctl writes (plan, status, show, the accounts'
 * combined comment): names and messages, which may come from the DSP, render as the text
 * they are, never as markup, by GitHub's rules (GitHub Flavored Markdown, then its mention
 * and autolink filters). Control and bidi characters are escapes first (printable).
 */
import { printable } from "../model/printable.js";

/**
 * Backslash escapes for what starts markup inside a line: emphasis, code spans, links and
 * images (`[`, `]`), strikethrough, a table cell's end (`|`) and the escape itself. An
 * underscore inside a word (`budget_money`) never marks emphasis, so it stays as it is.
 */
const MARKUP = /[\\`*[\]~|]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
const HTML: Record<string, string> = { "<": "&lt;", "&": "&amp;" };

/**
 * What GitHub (and GitLab) read as a reference in text: `@name`, an issue or pull request
 * `#123`, `GH-123` or `owner/repo#123`, a merge request `!123`. A zero-width space written as
 * a character reference (`&#8203;`) after the sigil breaks each: nothing raw reaches the output.
 */
const REFERENCE = /@|[#!](?=\d)|\bGH-(?=\d)/gi;

/**
 * Text for a table cell or a line of prose. `<` and `&` are entities (no HTML tag, no
 * character reference; a `>` alone is text); a bare URL or `www.` is broken by an escape, so it is no autolink;
 * a reference (`REFERENCE`) is broken, so no name is a mention, no address an e-mail link and
 * no number a link to an issue.
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
 * A code span (account names, file paths): nothing in it is markup; a backtick would end
 * it, so it is shown as `'`; `inTable` escapes `|`, which GitHub reads as a cell's end even
 * in a code span.
 */
export function code(text: string, options: { inTable?: boolean } = {}): string {
  const inner = printable(text).replace(/`/g, "'");
  return `\`${options.inTable ? inner.replace(/\|/g, "\\|") : inner}\``;
}
