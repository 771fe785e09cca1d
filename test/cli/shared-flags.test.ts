import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { bufferIO } from "../helpers/io.js";

/** A command's --help, its whitespace (column padding, wrapping) collapsed to single spaces. */
async function help(command: string): Promise<string> {
  const io = bufferIO();
  await run([command, "--help"], io);
  return io.out().replace(/\s+/g, " ");
}

const CA =
  "--ca <file> trust this PEM CA certificate in addition to Node's bundled roots (a DSP behind a private CA)";
const SESSION_CACHE = "--no-session-cache log in afresh and do not store the session";

describe("options several commands share", () => {
  it.each(["plan", "apply", "status", "doctor"])(
    "%s offers --ca and --no-session-cache, worded alike",
    async (command) => {
      const text = await help(command);
      expect(text).toContain(CA);
      expect(text).toContain(SESSION_CACHE);
    },
  );

  it("export offers --no-session-cache, worded alike", async () => {
    expect(await help("export")).toContain(SESSION_CACHE);
  });

  it("plan and apply take --target repeatedly, and say alike what it narrows to (one planner)", async () => {
    for (const command of ["plan", "apply"]) {
      expect(await help(command)).toContain(
        "--target <id> narrow the plan to an insertion order, campaign or creative id (repeatable) (default: [])",
      );
    }
  });

  // One --format, each command with its own values. The five commands that
  // check it themselves say so as a usage error in their own voice, before reading anything.
  it.each([
    ["plan", "output on stdout: text, json or markdown", "text, json or markdown"],
    ["apply", "result format on stdout: text or json", "text or json"],
    ["status", "output on stdout: text, json or markdown", "text, json or markdown"],
    ["doctor", "output on stdout: text or json", "text or json"],
    ["pull", "output on stdout (text: a unified diff): text or json", "text or json"],
  ])(
    "%s takes --format with its own values, and refuses another before anything is read",
    async (command, description, values) => {
      expect(await help(command)).toContain(`--format <format> ${description} (default: "text")`);
      const io = bufferIO();
      expect(await run([command, "--format", "yaml"], io)).toBe(1);
      expect(io.err()).toBe(`doohctl ${command}: --format yaml is not known: use ${values}\n`);
      expect(io.out()).toBe("");
    },
  );
});
