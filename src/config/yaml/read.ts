/**
 * Stage 1: text -> plain data plus a SourceIndex of positions, by `yaml`. YAML 1.2 core (a
 * time stays a string), `<<` merges, duplicate keys are errors; integers come as bigint, so an
 * id with more digits than a double holds is caught ("quote this id") rather than rounded.
 */

import { type Document, isScalar, LineCounter, parseDocument } from "yaml";
import { append } from "../../model/append.js";
import { MAX_NESTING_DEPTH, valueTooDeepAt } from "../../model/json-depth.js";
import { count } from "../../model/plural.js";
import type { ConfigIssue } from "../issues.js";
import { pathText } from "../path-text.js";
import { SourceIndex } from "../source-index.js";
import { resolveAliases } from "./aliases.js";
import { Converter } from "./converter.js";
import { explainYamlError } from "./error-explanation.js";
import { strayIndentAt } from "./stray-indent.js";
import { syntaxCause } from "./syntax-cause.js";

export interface ParsedSource {
  /** The document as plain data; bigint where an integer is beyond the safe range. */
  value: unknown;
  index: SourceIndex;
  issues: ConfigIssue[];
  /** False when later stages would only report follow-on noise. */
  usable: boolean;
  /** The parsed document, when usable: pull edits the text through it (src/pull/document-edit.ts). */
  document?: Document;
}

const YAML_OPTIONS = {
  version: "1.2",
  schema: "core",
  merge: true,
  uniqueKeys: true,
  intAsBigInt: true,
  prettyErrors: false,
} as const;

/** The lines of a text's YAML syntax errors (not its duplicate keys): stray-indent.ts tries fixes. */
function syntaxErrorLines(text: string): number[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { ...YAML_OPTIONS, lineCounter });
  return doc.errors.filter((e) => e.code !== "DUPLICATE_KEY").map((e) => lineCounter.linePos(e.pos[0]).line);
}

/** Reads one file's YAML with `yaml`, with located errors. */
export function parseYaml(text: string, file: string): ParsedSource {
  const lineCounter = new LineCounter();
  const index = new SourceIndex(file, lineCounter, text);
  const issues: ConfigIssue[] = [];
  try {
    return tooDeep(readDocument(text, index, lineCounter, issues));
  } catch (error) {
    // Defensive: whatever still throws is a located issue; loadConfig rejects only with a ConfigError.
    issues.push({
      file,
      ...documentStart(text),
      path: "",
      message: `YAML: this document could not be read (${errorText(error)}): simplify its anchors, aliases and \`<<\` merge keys, and please report it as a doohctl bug`,
      code: "YAML_SYNTAX",
    });
    return { value: undefined, index, issues, usable: false };
  }
}

/**
 * A value nested deeper than MAX_NESTING_DEPTH (a `pacing` too) is refused where it starts: later
 * stages recurse, and thousands of levels overflowed the stack.
 */
function tooDeep(parsed: ParsedSource): ParsedSource {
  if (!parsed.usable) return parsed;
  const path = valueTooDeepAt(parsed.value);
  if (path === undefined) return parsed;
  let parent: unknown = parsed.value;
  for (const key of path.slice(0, -1)) parent = (parent as Record<string | number, unknown>)[key];
  const at = parsed.index.ofKey(parent, path[path.length - 1]!);
  return {
    ...parsed,
    usable: false,
    issues: [
      ...parsed.issues,
      {
        file: parsed.index.file,
        ...at,
        path: pathText(path),
        code: "NESTING_TOO_DEEP",
        message: `nested more than ${MAX_NESTING_DEPTH} levels deep, counted from the top of the file: a config value (a pacing too) nests at most ${MAX_NESTING_DEPTH} maps and lists; flatten it`,
      },
    ],
  };
}

function readDocument(
  text: string,
  index: SourceIndex,
  lineCounter: LineCounter,
  issues: ConfigIssue[],
): ParsedSource {
  const file = index.file;
  const doc = parseDocument(text, { ...YAML_OPTIONS, lineCounter });
  let usable = true;
  // A key twice is the converter's to report (it knows the path); yaml's stands where it does not run.
  const duplicates: ConfigIssue[] = [];
  const reported = [...doc.errors, ...doc.warnings].sort((a, b) => a.pos[0] - b.pos[0]);
  // yaml's recursion gave out: that one cause, as the hunts below would parse again and give out too.
  const exhausted = reported.find((e) => e.code === "RESOURCE_EXHAUSTION");
  if (exhausted !== undefined) {
    const { code, message } = explainYamlError(exhausted.code, exhausted.message, text, exhausted.pos);
    const at = index.position(exhausted.pos[0]);
    return {
      value: undefined,
      index,
      issues: [{ file: index.file, ...at, path: "", message, code }],
      usable: false,
    };
  }
  // An unclosed bracket or quote, or a tab, where it starts; what follows from it is dropped.
  const cause = syntaxCause(text, reported, syntaxErrorLines);
  const errors = cause ? reported.filter((e) => e.pos[0] < cause.offset) : reported;
  if (cause) {
    usable = false;
    const { message, hint, code } = cause;
    issues.push({
      file,
      ...index.position(cause.offset),
      path: "",
      message,
      ...(hint ? { hint } : {}),
      code,
    });
  }
  const first = errors.find((e) => e.code !== "DUPLICATE_KEY");
  // A tab, or a value that needs quotes, has its own explanation (error-explanation.ts).
  const plain =
    first !== undefined &&
    first.code !== "TAB_AS_INDENT" &&
    explainYamlError(first.code, first.message, text, first.pos).hint === undefined;
  const stray = plain ? strayIndentAt(text, index.position(first.pos[0]).line, syntaxErrorLines) : undefined;
  if (stray) {
    usable = false;
    issues.push({
      file,
      line: stray.line,
      column: stray.indent + 1,
      path: "",
      message: `YAML: this line is indented by ${spaces(stray.indent)}, which breaks the lines after it: indent it by ${spaces(stray.expected)}`,
      hint: "the other errors YAML finds here follow from this line: validate again once it is fixed",
      code: "YAML_SYNTAX",
    });
  }
  for (const error of errors) {
    const { line, column } = index.position(error.pos[0]);
    // Around a stray line yaml reads lines in the wrong map: only earlier keys twice are kept.
    if (stray && (line >= stray.line || error.code !== "DUPLICATE_KEY")) continue;
    const { code, message, hint } = explainYamlError(error.code, error.message, text, error.pos);
    const issue: ConfigIssue = { file, line, column, path: "", message, ...(hint ? { hint } : {}), code };
    if (code === "DUPLICATE_KEY") duplicates.push(issue);
    else {
      usable = false;
      issues.push(issue);
    }
  }
  if (!usable) return { value: undefined, index, issues: [...issues, ...duplicates], usable };
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) {
    issues.push({
      file,
      line: 1,
      column: 1,
      path: "",
      message: "file is empty: a config starts with `version: 1`",
      code: "EMPTY_FILE",
    });
    return { value: undefined, index, issues, usable: false };
  }
  // A looping alias would make the converter recurse into a collection it is still building.
  const aliases = resolveAliases(doc, index);
  append(issues, aliases.loops);
  if (aliases.loops.length > 0) return { value: undefined, index, issues, usable: false };
  const converter = new Converter(doc, aliases.targets, index, issues);
  const value = converter.convert(doc.contents);
  if (converter.unknownAliases > 0) return { value: undefined, index, issues, usable: false };
  return { value, index, issues, usable: true, document: doc };
}

/** The first line holding content (not blank, a comment or a directive), for a file-wide issue. */
function documentStart(text: string): { line: number; column: number } {
  const lines = text.split("\n");
  const at = lines.findIndex(
    (line) => !/^\s*(#.*)?$/.test(line) && !line.startsWith("%") && line.trim() !== "---",
  );
  if (at === -1) return { line: 1, column: 1 };
  return { line: at + 1, column: (lines[at]?.search(/\S/) ?? 0) + 1 };
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message.split("\n")[0]}` : String(error);
}

const spaces = (n: number) => count(n, "space");
