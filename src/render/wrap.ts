/**
 * Text for a terminal, broken at spaces: a line that does not fit breaks before the word that would
 * cross the edge (not mid-word, as a terminal does) and goes on indented. Only on a terminal
 * (src/cli/process-output.ts): a file or pipe keeps every line whole.
 */

const ESC = "\u001b";
/** Colour and style codes (SGR) take no room on the screen. */
const SGR = new RegExp(`${ESC}\\[[0-9;]*m`, "g");
/** A line that moves the cursor itself (a progress redraw: `\r`, erase to end) is left alone. */
const CURSOR_CONTROL = new RegExp(`\r|${ESC}\\[[0-9;]*[A-Za-ln-z]`);

/** How many columns `text` takes: one per code point, colour codes none. */
export function visibleWidth(text: string): number {
  return [...text.replace(SGR, "")].length;
}

/** Wraps `text` written from `column` to `columns`; returns it and the cursor's column after it. */
export function wrapToWidth(text: string, columns: number, column = 0): { text: string; column: number } {
  const lines = text.split("\n");
  const out: string[] = [];
  let at = column;
  lines.forEach((line, i) => {
    if (i > 0) at = 0;
    if (CURSOR_CONTROL.test(line)) {
      out.push(line);
      const afterReturn = line.slice(line.lastIndexOf("\r") + 1);
      at = line.includes("\r")
        ? visibleWidth(afterReturn.replace(CURSOR_CONTROL, ""))
        : at + visibleWidth(line);
      return;
    }
    const wrapped = wrapLine(line, columns, at);
    out.push(wrapped.text);
    at = wrapped.column;
  });
  return { text: out.join("\n"), column: at };
}

function wrapLine(line: string, columns: number, start: number): { text: string; column: number } {
  if (start + visibleWidth(line) <= columns) return { text: line, column: start + visibleWidth(line) };
  const lead = /^ */.exec(line)?.[0] ?? "";
  // Continuation lines sit two columns in from the line they continue, unless that leaves
  // too little room to be worth it.
  const indent = lead.length + 2 <= columns / 2 ? `${lead}  ` : "";
  const words = line.slice(lead.length).split(/( +)/);
  const rows: string[] = [];
  let row = lead;
  let width = start + lead.length;
  for (let i = 0; i < words.length; i += 2) {
    const word = words[i] ?? "";
    const gap = i === 0 ? "" : (words[i - 1] ?? "");
    const wordWidth = visibleWidth(word);
    const rowHasWord = row.trim() !== "";
    if (rowHasWord && width + gap.length + wordWidth > columns) {
      rows.push(row);
      row = indent + word;
      width = indent.length + wordWidth;
    } else {
      row += gap + word;
      width += gap.length + wordWidth;
    }
  }
  rows.push(row);
  return { text: rows.join("\n"), column: width };
}
