/**
 * A runnable block leaves the terminal tidy: a command whose answer ends without a line break
 * (curl prints the DSP's JSON as it comes) is followed by one, so the next command's output
 * starts on a line of its own. Checked as text, on every runnable block of the README and
 * docs/ (runnable-blocks.ts); runnable.test.ts runs them.
 */
import { describe, expect, it } from "vitest";
import { RUNNABLE } from "./runnable-blocks.js";

/** The block's commands, a line continued with `\` joined to the next. */
function commands(block: string): string[] {
  return block.replace(/\\\n/g, " ").split("\n");
}

/** A curl whose answer goes to the terminal as it came: not into a file, a pipe or /dev/null. */
const printsAnswer = (command: string) =>
  /(^|[;&|]\s*|until\s+)curl\s/.test(command) && !/\s-o\s|>|\|/.test(command.replace(/#.*$/, ""));

describe("runnable blocks leave the terminal tidy", () => {
  it.each(RUNNABLE.map((d) => [d.doc, d.blocks] as const))(
    "%s: every curl that prints an answer ends it with a line break",
    (_doc, blocks) => {
      const untidy = blocks.flatMap(commands).filter((c) => printsAnswer(c) && !c.includes("-w '\\n'"));
      expect(untidy).toEqual([]);
    },
  );

  it("finds the curls of the README's drift block", () => {
    const readme = RUNNABLE.find((d) => d.doc === "README.md")?.blocks.flatMap(commands) ?? [];
    expect(readme.filter(printsAnswer)).toHaveLength(2);
  });
});
