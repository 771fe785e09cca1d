/**
 * Where a YAML syntax error starts. `yaml` reports an unclosed bracket or quote lines later,
 * and a tab as a dozen misaligned maps; the cause, whichever comes first, is found in the
 * concrete syntax tree `yaml` builds even of a broken file. read.ts reports it where it starts
 * and drops every error after it.
 */
import { type CST, Parser, type YAMLError } from "yaml";
import { count } from "../../model/plural.js";
import { looksLikeCredential } from "../guard-text.js";
import type { ConfigIssueCode } from "../issues.js";
import { explainYamlError, withoutComment } from "./error-explanation.js";
import { type ErrorLines, strayIndentAt } from "./stray-indent.js";

export interface SyntaxCause {
  /** Where the cause starts in the text: the opening bracket or quote, the tab. */
  offset: number;
  code: ConfigIssueCode;
  message: string;
  hint?: string | undefined;
}

/** The first cause of `errors` (yaml's, of `text`), or undefined when none is one of the above. */
export function syntaxCause(
  text: string,
  errors: readonly YAMLError[],
  errorLines: ErrorLines,
): SyntaxCause | undefined {
  if (!errors.some((e) => e.code !== "DUPLICATE_KEY")) return undefined;
  const causes: SyntaxCause[] = [];
  const tab = errors.find((e) => e.code === "TAB_AS_INDENT");
  if (tab) {
    // What to write: the spaces that make the file readable, found as for a stray line.
    const line = text.slice(0, tab.pos[0]).split("\n").length;
    const fix = strayIndentAt(text, line, errorLines);
    const hint = fix?.line === line ? `indent it with ${count(fix.expected, "space")} instead` : undefined;
    causes.push({ offset: tab.pos[0], ...explainYamlError(tab.code, tab.message, text, tab.pos), hint });
  }
  const unclosed = firstUnclosed(text);
  if (unclosed) causes.push(unclosed);
  return causes.sort((a, b) => a.offset - b.offset)[0];
}

const QUOTED = {
  "double-quoted-scalar": /^"(?:[^"\\]|\\[\s\S])*"$/,
  "single-quoted-scalar": /^'(?:[^']|'')*'$/,
} as const;

/** The first bracket or quote that is never closed, in text order. */
function firstUnclosed(text: string): SyntaxCause | undefined {
  let first: SyntaxCause | undefined;
  const consider = (cause: SyntaxCause) => {
    if (first === undefined || cause.offset < first.offset) first = cause;
  };
  const walk = (token: unknown): void => {
    if (typeof token !== "object" || token === null) return;
    if (Array.isArray(token)) {
      for (const item of token) walk(item);
      return;
    }
    const t = token as CST.Token;
    if (t.type === "flow-collection") {
      const closer = t.start.source === "[" ? "flow-seq-end" : "flow-map-end";
      if (!t.end.some((e) => e.type === closer)) consider(unclosedBracket(text, t.offset, t.start.source));
    } else if (t.type === "double-quoted-scalar" || t.type === "single-quoted-scalar") {
      if (!QUOTED[t.type].test(t.source)) consider(unclosedQuote(text, t.offset, t.source.charAt(0)));
    }
    // Every field of a token that can hold another: items, key, sep, value, start, end.
    for (const [key, value] of Object.entries(t))
      if (key !== "source" && typeof value === "object") walk(value);
  };
  for (const token of new Parser().parse(text)) walk(token);
  return first;
}

/** The rest of the line from `offset`, for the hint; empty if it looks like a credential (guard-text.ts). */
function restOfLine(text: string, offset: number): string {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  const end = text.indexOf("\n", offset);
  const line = text.slice(start, end === -1 ? text.length : end).replace(/\r$/, "");
  return looksLikeCredential(line) ? "" : line.slice(offset - start);
}

function unclosedBracket(text: string, offset: number, opener: string): SyntaxCause {
  const list = opener === "[";
  const closer = list ? "]" : "}";
  const rest = withoutComment(restOfLine(text, offset)).trimEnd();
  const what = list ? "list" : "map";
  return {
    offset,
    code: "YAML_SYNTAX",
    message: `YAML: this ${opener} starts a ${what} that is never closed: end the ${what} with ${closer}`,
    // Written on one line, the fix is that line closed; across lines, where it ends is the user's.
    hint: rest.length > 1 ? `write ${rest}${list || rest.endsWith(" ") ? "" : " "}${closer}` : undefined,
  };
}

function unclosedQuote(text: string, offset: number, quote: string): SyntaxCause {
  const rest = restOfLine(text, offset).trimEnd();
  return {
    offset,
    code: "YAML_SYNTAX",
    message: `YAML: this ${quote} starts a quoted value that is never closed: end the value with ${quote}`,
    hint: rest.length > 1 ? `write ${rest}${quote}` : undefined,
  };
}
