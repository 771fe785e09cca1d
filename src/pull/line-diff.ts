/**
 * A unified diff from pull's splices: each splice's lines, common ends trimmed, three lines of
 * context, hunks merged when their context meets. Linear in the file (10,000 campaigns are ~100,000
 * lines): only the spliced lines can differ.
 */

/** A replacement of `start..end` of a text (offsets in the original). */
export interface Splice {
  start: number;
  end: number;
  text: string;
}

interface Change {
  /** First old line (0-based) and how many old lines; the new lines replacing them. */
  at: number;
  removed: string[];
  added: string[];
}

const CONTEXT = 3;

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

export function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The changed lines of each splice (splices in the original's offsets, not overlapping). */
function changes(text: string, splices: readonly Splice[]): Change[] {
  const starts = lineStarts(text);
  const sorted = [...splices].sort((a, b) => a.start - b.start);
  const merged: { first: number; last: number; parts: Splice[] }[] = [];
  for (const splice of sorted) {
    const first = lineAt(starts, splice.start);
    const last = lineAt(starts, Math.max(splice.start, splice.end - 1));
    const previous = merged[merged.length - 1];
    if (previous && first <= previous.last) {
      previous.last = Math.max(previous.last, last);
      previous.parts.push(splice);
    } else merged.push({ first, last, parts: [splice] });
  }
  return merged.map(({ first, last, parts }) => {
    const from = starts[first] ?? 0;
    const to = starts[last + 1] ?? text.length;
    let updated = "";
    let cursor = from;
    for (const p of parts) {
      updated += text.slice(cursor, p.start) + p.text;
      cursor = p.end;
    }
    updated += text.slice(cursor, to);
    const removed = splitLines(text.slice(from, to));
    const added = splitLines(updated);
    let at = first;
    while (removed.length > 0 && added.length > 0 && removed[0] === added[0]) {
      removed.shift();
      added.shift();
      at++;
    }
    while (
      removed.length > 0 &&
      added.length > 0 &&
      removed[removed.length - 1] === added[added.length - 1]
    ) {
      removed.pop();
      added.pop();
    }
    return { at, removed, added };
  });
}

/** `--- a/file` / `+++ b/file` and its hunks; "" when nothing changes. */
export function unifiedDiff(file: string, text: string, splices: readonly Splice[]): string {
  const all = changes(text, splices).filter((c) => c.removed.length > 0 || c.added.length > 0);
  if (all.length === 0) return "";
  const lines = splitLines(text).map((l) => l.replace(/\r$/, ""));
  const out = [`--- a/${file}`, `+++ b/${file}`];
  let i = 0;
  let shift = 0;
  while (i < all.length) {
    let j = i;
    while (j + 1 < all.length) {
      const a = all[j] as Change;
      const b = all[j + 1] as Change;
      if (b.at - (a.at + a.removed.length) > 2 * CONTEXT) break;
      j++;
    }
    const first = all[i] as Change;
    const lastChange = all[j] as Change;
    const start = Math.max(0, first.at - CONTEXT);
    const end = Math.min(lines.length, lastChange.at + lastChange.removed.length + CONTEXT);
    const body: string[] = [];
    let oldCount = 0;
    let newCount = 0;
    let cursor = start;
    for (let k = i; k <= j; k++) {
      const c = all[k] as Change;
      for (; cursor < c.at; cursor++, oldCount++, newCount++) body.push(` ${lines[cursor]}`);
      for (const r of c.removed) body.push(`-${r.replace(/\r$/, "")}`);
      for (const a of c.added) body.push(`+${a.replace(/\r$/, "")}`);
      oldCount += c.removed.length;
      newCount += c.added.length;
      cursor = c.at + c.removed.length;
    }
    for (; cursor < end; cursor++, oldCount++, newCount++) body.push(` ${lines[cursor]}`);
    const oldStart = oldCount === 0 ? start : start + 1;
    const newStart = (newCount === 0 ? start : start + 1) + shift;
    shift += newCount - oldCount;
    out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`);
    for (const line of body) out.push(line);
    i = j + 1;
  }
  return `${out.join("\n")}\n`;
}
