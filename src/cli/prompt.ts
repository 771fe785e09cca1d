/**
 * The approval prompt: what was typed before the question is discarded (a `yes` typed ahead
 * must never approve a plan nobody has seen). Ctrl-C rejects with PromptInterrupted.
 */
import { createInterface } from "node:readline/promises";
import type { Readable, Writable } from "node:stream";
import { PromptInterrupted } from "./io.js";

/** A terminal input: a Readable that can switch raw mode (process.stdin on a TTY). */
export type TerminalInput = Readable & { setRawMode?(mode: boolean): unknown; isRaw?: boolean };

/** Drops what is buffered on the terminal: in raw mode it comes at once; `settleMs` lets it arrive. */
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
      // Ctrl-D is an empty answer (nothing sent), not readline's "Aborted with Ctrl+D"; the
      // prompt's line is ended, as Enter would.
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
