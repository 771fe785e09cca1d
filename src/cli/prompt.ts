/**
 * The approval prompt on a terminal. What the user typed while the plan was still being read
 * is no answer to a question not yet asked: it is discarded before the question is shown
 * (a `yes` typed ahead must never approve a plan nobody has seen). Ctrl-C at the prompt
 * rejects with PromptInterrupted.
 */
import { createInterface } from "node:readline/promises";
import type { Readable, Writable } from "node:stream";
import { PromptInterrupted } from "./io.js";

/** A terminal input: a Readable that can switch raw mode (process.stdin on a TTY). */
export type TerminalInput = Readable & { setRawMode?(mode: boolean): unknown; isRaw?: boolean };

/**
 * Reads and drops whatever is already buffered on the terminal. In raw mode the terminal hands
 * over pending input at once, a whole line or a part of one; `settleMs` lets it arrive.
 */
export async function discardTypeAhead(input: TerminalInput, settleMs = 30): Promise<void> {
  const wasRaw = input.isRaw === true;
  input.setRawMode?.(true);
  const drop = () => {
    while (input.read() !== null) {
      // discard
    }
  };
  input.on("readable", drop);
  input.resume();
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  drop();
  input.off("readable", drop);
  input.pause();
  input.setRawMode?.(wasRaw);
}

export async function askLine(input: TerminalInput, output: Writable, question: string): Promise<string> {
  await discardTypeAhead(input);
  const rl = createInterface({ input, output, terminal: true });
  try {
    return await new Promise<string>((resolve, reject) => {
      rl.on("SIGINT", () => {
        output.write("\n");
        reject(new PromptInterrupted("interrupted at the prompt"));
      });
      // Ctrl-D (end of input) is no answer: readline rejects with "Aborted with Ctrl+D",
      // which apply would print as its error; as an empty answer it says nothing was sent.
      // Enter ends the prompt's line, Ctrl-D does not: end it, so the next line starts clean.
      rl.question(question).then(resolve, (error: unknown) => {
        if ((error as { code?: unknown })?.code !== "ABORT_ERR") return reject(error);
        output.write("\n");
        resolve("");
      });
    });
  } finally {
    rl.close();
  }
}
