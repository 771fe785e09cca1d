import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PromptInterrupted } from "../../src/cli/io.js";
import { run } from "../../src/cli/program.js";
import { askLine, discardTypeAhead, type TerminalInput } from "../../src/cli/prompt.js";
import { seedCampaign } from "../helpers/builders.js";
import { type CliAccount, MALLS_RAISED, startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";
import { USER } from "../helpers/users.js";
import { dspWrites } from "../helpers/world.js";

/** A terminal stand-in: a stream that records raw-mode switches, as process.stdin on a TTY. */
function fakeTerminal(): TerminalInput & { modes: boolean[]; type(text: string): void } {
  const input = new PassThrough() as unknown as TerminalInput & {
    modes: boolean[];
    type(text: string): void;
    isTTY: boolean;
  };
  input.modes = [];
  input.isRaw = false;
  input.isTTY = true;
  input.setRawMode = (mode: boolean) => {
    input.modes.push(mode);
    input.isRaw = mode;
    return input;
  };
  input.type = (text: string) => (input as unknown as PassThrough).write(text);
  return input;
}

/** An output that calls `onQuestion` once the question has been written. */
function screen(question: string, onQuestion: () => void): PassThrough & { text(): string } {
  const output = new PassThrough() as PassThrough & { text(): string };
  let text = "";
  let asked = false;
  output.on("data", (chunk: Buffer) => {
    text += chunk.toString();
    if (!asked && text.includes(question)) {
      asked = true;
      setImmediate(onQuestion);
    }
  });
  output.text = () => text;
  return output;
}

describe("discardTypeAhead", () => {
  it("drops everything buffered, in raw mode, and restores the mode it found", async () => {
    const input = fakeTerminal();
    input.type("yes\n");
    input.type("yes\n");
    await discardTypeAhead(input, 0);
    expect(input.read()).toBeNull();
    expect(input.modes).toEqual([true, false]);
    expect(input.isRaw).toBe(false);
    // What is typed afterwards is kept for the question.
    input.type("no\n");
    expect(String(input.read())).toBe("no\n");
  });
});

describe("askLine", () => {
  it("never takes a yes typed before the question as the answer", async () => {
    const input = fakeTerminal();
    input.type("yes\n");
    const output = screen("Apply? ", () => input.type("no\n"));
    expect(await askLine(input, output, "Apply? ")).toBe("no");
  });

  it("rejects with PromptInterrupted on Ctrl-C at the question", async () => {
    const input = fakeTerminal();
    const output = screen("Apply? ", () => input.type("\x03"));
    await expect(askLine(input, output, "Apply? ")).rejects.toBeInstanceOf(PromptInterrupted);
  });

  it("answers nothing on Ctrl-D and ends the prompt's line, so what follows starts on its own", async () => {
    const input = fakeTerminal();
    const output = screen("Apply? ", () => input.type("\x04"));
    expect(await askLine(input, output, "Apply? ")).toBe("");
    await new Promise((resolve) => setImmediate(resolve));
    expect(output.text().slice(output.text().lastIndexOf("Apply? "))).toMatch(/^Apply\? [^\n]*\n$/);
  });
});

describe("doohctl apply at the prompt", () => {
  let account: CliAccount;
  beforeEach(async () => {
    account = await startCliAccount({
      users: [USER],
      campaigns: [seedCampaign("5001", "1001", "Malls")],
      configOrders: MALLS_RAISED,
      prefix: "doohctl-prompt-",
    });
  });
  afterEach(async () => {
    await account.close();
  });

  it("exits 130 on Ctrl-C, says nothing was sent, and sends no write", async () => {
    const { emulator, dir, env } = account;
    const input = fakeTerminal();
    input.type("yes\n"); // typed while the plan was read: must not approve
    const base = bufferIO({ env, cwd: dir, tty: true });
    const io = {
      ...base,
      prompt: (question: string) =>
        askLine(
          input,
          screen(question, () => input.type("\x03")),
          question,
        ),
    };
    expect(await run(["apply", "--no-session-cache"], io)).toBe(130);
    expect(base.out()).toContain("Malls");
    expect(base.err()).toContain("Apply cancelled at the prompt: nothing was sent.");
    expect(dspWrites(emulator)).toEqual([]);
    expect(emulator.state().campaigns[0]?.budget_impressions).toBe(100_000);
  });

  it("on Ctrl-D (end of input) at the question says nothing was sent, and sends no write", async () => {
    const { emulator, dir, env } = account;
    const input = fakeTerminal();
    const base = bufferIO({ env, cwd: dir, tty: true });
    const io = {
      ...base,
      prompt: (question: string) =>
        askLine(
          input,
          screen(question, () => input.type("\x04")),
          question,
        ),
    };
    expect(await run(["apply", "--no-session-cache"], io)).toBe(1);
    expect(base.err()).toContain("Apply cancelled: nothing was sent.");
    expect(dspWrites(emulator)).toEqual([]);
  });
});
