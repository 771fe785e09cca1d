/**
 * One stray indentation makes `yaml` report a cascade (ten errors, a false "appears twice"):
 * when re-indenting one line near the first error makes the file readable, that line is the
 * one error, with the indentation that works.
 */

/** A content line whose indentation, changed to `expected`, makes the file readable. */
export interface StrayIndent {
  /** 1-based. */
  line: number;
  indent: number;
  expected: number;
}

/** The lines (1-based) `yaml` reports syntax errors at, for a text. */
export type ErrorLines = (text: string) => number[];

const isContent = (line: string) => !/^\s*(#.*)?$/.test(line) && line.trim() !== "---";
const indentOf = (line: string) => line.length - line.trimStart().length;
/** Where a line's keys start: after the dash of a list item (`  - name: x` -> 4). */
const keysAt = (line: string) => /^\s*-\s+/.exec(line)?.[0].length ?? indentOf(line);

/** Lines tried around the first error: yaml reports the line above a stray item, or below a stray key. */
const OFFSETS = [0, 1, -1, 2, -2, -3];
/** How many content lines up a sibling's indentation is looked for. */
const SIBLING_LOOK_BACK = 40;

/** The stray line at or near `errorLine`; undefined when none is. */
export function strayIndentAt(
  text: string,
  errorLine: number,
  errorLines: ErrorLines,
): StrayIndent | undefined {
  const lines = text.split("\n");
  const content = (from: number, step: 1 | -1): number | undefined => {
    for (let i = from; i >= 0 && i < lines.length; i += step) if (isContent(lines[i] ?? "")) return i;
    return undefined;
  };
  const below = (from: number, steps: number): number | undefined => {
    let at = content(from, 1);
    for (let i = 0; i < steps && at !== undefined; i++) at = content(at + 1, 1);
    return at;
  };
  const above = (from: number, steps: number): number | undefined => {
    let at = content(from, -1);
    for (let i = 0; i < steps && at !== undefined; i++) at = content(at - 1, -1);
    return at;
  };
  const first = Math.min(errorLine - 1, lines.length - 1);
  const candidates = OFFSETS.map((offset) =>
    offset >= 0 ? below(first, offset) : above(first, -offset - (isContent(lines[first] ?? "") ? 0 : 1)),
  ).filter((at): at is number => at !== undefined);
  for (const candidate of candidates) {
    const line = lines[candidate] ?? "";
    const previous = content(candidate - 1, -1);
    const next = content(candidate + 1, 1);
    const over = previous === undefined ? "" : (lines[previous] ?? "");
    const under = next === undefined ? "" : (lines[next] ?? "");
    // Its neighbours' indentation, or a sibling's further up (a list item after a deep one).
    const tries = new Set([indentOf(over), keysAt(over), keysAt(over) + 2, indentOf(under)]);
    const dash = /^\s*-(\s|$)/.test(line);
    for (let at = previous, seen = 0; at !== undefined && seen < SIBLING_LOOK_BACK; seen++) {
      const earlier = lines[at] ?? "";
      if (/^\s*-(\s|$)/.test(earlier) === dash) tries.add(indentOf(earlier));
      at = content(at - 1, -1);
    }
    tries.delete(indentOf(line));
    for (const expected of [...tries].sort((a, b) => b - a)) {
      const fixed = [...lines];
      fixed[candidate] = " ".repeat(expected) + line.trimStart();
      // Only a fix that leaves no syntax error at all proves this line was the one.
      if (errorLines(fixed.join("\n")).length === 0) {
        return { line: candidate + 1, indent: indentOf(line), expected };
      }
    }
  }
  return undefined;
}
