import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { exampleSeed } from "../helpers/example-seed.js";
import { bufferIO } from "../helpers/io.js";

// The quickstart raises campaign 5001's cpm from 12.00 to 12.50 USD: +4.2%.
const QUICKSTART = "examples/quickstart";
const { seed, clock } = await exampleSeed();
let emulator: RunningEmulator;
let env: Record<string, string>;

beforeAll(async () => {
  emulator = (await startCliAccount({ seed, emulator: { clock } })).emulator;
  env = {
    DOOHCTL_API_ORIGIN: emulator.origin,
    DOOHCTL_EMAIL: "demo@doohctl.test",
    DOOHCTL_PASSWORD: "demo-password",
    DOOHCTL_SESSION_CACHE: "off",
  };
});
afterAll(() => emulator.close());

describe("plan and apply tuning flags", () => {
  it("--cpm-increase-threshold decides when a cpm increase is called out (DOOH401)", async () => {
    const byDefault = bufferIO({ env, clock });
    expect(await run(["plan", QUICKSTART], byDefault)).toBe(0);
    expect(byDefault.out()).not.toContain("DOOH401");

    const strict = bufferIO({ env, clock });
    expect(await run(["plan", QUICKSTART, "--cpm-increase-threshold", "1"], strict)).toBe(0);
    expect(strict.out()).toMatch(/DOOH401.*cpm/);
  });

  it("refuses a threshold that is not a number", async () => {
    const io = bufferIO({ env, clock });
    expect(await run(["plan", QUICKSTART, "--budget-increase-threshold", "lots"], io)).toBe(1);
    expect(io.err()).toMatch(/--budget-increase-threshold.*write a number of 0 or more/);
  });

  it("--max-wait fails a run at once, naming the flag, when the DSP asks to wait longer", async () => {
    emulator.setFaults("429:1");
    try {
      const io = bufferIO({ env, clock });
      expect(await run(["plan", QUICKSTART, "--max-wait", "0"], io)).toBe(1);
      expect(io.err()).toMatch(/more than the 0 s allowed \(raise it with --max-wait/);
      expect(io.out()).toBe("");
    } finally {
      emulator.setFaults("");
    }
  });
});
