/**
 * The full reader of stage 1: `yaml`, the reference, which reads every file the fast reader
 * hands over and explains every error at its position.
 */

import { isScalar, LineCounter, parseDocument } from "yaml";
import { append } from "../../model/append.js";
import type { ConfigIssue } from "../issues.js";
import { SourceIndex } from "../source-index.js";
import { resolveAliases } from "./aliases.js";
import { Converter } from "./converter.js";
import { explainYamlError } from "./error-explanation.js";

export interface ParsedSource {
  /** The document as plain data; bigint where an integer is beyond the safe range. */
  value: unknown;
  index: SourceIndex;
  issues: ConfigIssue[];
  /** False when later stages would only report follow-on noise. */
  usable: boolean;
}

/** Reads one file's YAML with `yaml`: the reference reader, with located errors. */
export function parseYamlFully(text: string, file: string): ParsedSource {
  const lineCounter = new LineCounter();
  const index = new SourceIndex(file, lineCounter, text);
  const issues: ConfigIssue[] = [];
  try {
    return readDocument(text, index, lineCounter, issues);
  } catch (error) {
    // Defensive: every shape we know of is reported as an issue below; anything the yaml
    // package (or this converter) still throws on becomes a located issue too, so that
    // loadConfig only ever rejects with a ConfigError.
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

function readDocument(
  text: string,
  index: SourceIndex,
  lineCounter: LineCounter,
  issues: ConfigIssue[],
): ParsedSource {
  const file = index.file;
  const doc = parseDocument(text, {
    version: "1.2",
    schema: "core",
    merge: true,
    uniqueKeys: true,
    intAsBigInt: true,
    prettyErrors: false,
    lineCounter,
  });
  let usable = true;
  // A key written twice is reported by the converter, which knows its path and the first
  // occurrence; yaml's own report stands only where the converter does not run.
  const duplicates: ConfigIssue[] = [];
  for (const error of [...doc.errors, ...doc.warnings]) {
    const { line, column } = index.position(error.pos[0]);
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
  return { value, index, issues, usable: true };
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
