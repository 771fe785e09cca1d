/**
 * The snippets of the README and docs/ marked runnable: a fenced block opened with
 * ```sh runnable. runnable.test.ts runs them against an installed package;
 * runnable-tidy.test.ts reads them as text.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../proof/binary.js";

export const DOCUMENTS = ["README.md", ...readdirSync(join(ROOT, "docs")).map((f) => `docs/${f}`)];

/** The runnable blocks of a Markdown file, in order. */
export function runnableBlocks(text: string): string[] {
  const blocks: string[] = [];
  let current: string[] | undefined;
  for (const line of text.split("\n")) {
    if (current === undefined) {
      if (/^```sh runnable\s*$/.test(line)) current = [];
    } else if (line.startsWith("```")) {
      blocks.push(current.join("\n"));
      current = undefined;
    } else current.push(line);
  }
  return blocks;
}

/** Each document with runnable blocks, and its blocks. */
export const RUNNABLE = DOCUMENTS.map((doc) => ({
  doc,
  blocks: runnableBlocks(readFileSync(join(ROOT, doc), "utf8")),
})).filter((d) => d.blocks.length > 0);
