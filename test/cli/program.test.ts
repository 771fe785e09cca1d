import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { TOOL_VERSION } from "../../src/cli/version.js";
import { bufferIO } from "../helpers/io.js";

describe("doohctl", () => {
  it("prints its version from package.json", async () => {
    const io = bufferIO();
    expect(await run(["--version"], io)).toBe(0);
    expect(io.out()).toBe(`${TOOL_VERSION}\n`);
    expect(TOOL_VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("exits 1 on an unknown command and says how to get help", async () => {
    const io = bufferIO();
    expect(await run(["frobnicate"], io)).toBe(1);
    expect(io.err()).toMatch(/unknown command 'frobnicate'/);
    expect(io.err()).toMatch(/doohctl --help/);
  });
});
