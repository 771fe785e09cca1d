/**
 * `doohctl emulator --seed demo` finds the packaged examples/emulator-seed.json from any
 * directory, in the sources and in the built package (docs/emulator.md); a path still works,
 * and a bare word that is neither a file nor a name is refused with the names.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { seedPath } from "../../src/emulator/seed-names.js";
import { bufferIO, interruptibleIO } from "../helpers/io.js";
import { DEMO_USER } from "../helpers/users.js";
import { ensureBuilt, ROOT, spawnCli } from "../proof/binary.js";
import { login, request } from "./helpers.js";

const EXAMPLE = join(ROOT, "examples/emulator-seed.json");

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 2_000 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
}

/** The campaigns the demo user sees on the emulator at `origin`. */
async function campaignCount(origin: string): Promise<number> {
  const cookie = await login(origin, DEMO_USER);
  const campaigns = await request(origin, "GET", "/api/dsp/v1/campaigns?page_size=100", { cookie });
  return campaigns.body.total_size as number;
}

describe("--seed NAME", () => {
  let elsewhere: string;
  beforeEach(() => {
    elsewhere = mkdtempSync(join(tmpdir(), "doohctl-seed-name-"));
  });
  afterEach(() => rmSync(elsewhere, { recursive: true, force: true }));

  it("resolves demo to the packaged example seed, whatever the working directory", () => {
    expect(seedPath("demo", elsewhere)).toBe(EXAMPLE);
  });

  it("serves the example seed from a directory without examples/", async () => {
    const { io, interrupt } = interruptibleIO({ cwd: elsewhere });
    const exit = run(["emulator", "--port", "0", "--seed", "demo"], io);
    await until(() => io.err().includes("Ctrl-C"));
    expect(io.err()).toContain("user: demo@doohctl.test (account 1, password demo-password)");
    const origin = /listening on (http:\/\/\S+)/.exec(io.err())?.[1] ?? "";
    expect(await campaignCount(origin)).toBe(12);
    interrupt("SIGINT");
    expect(await exit).toBe(0);
  });

  it("reads a path as before, and a file named like a seed as ./NAME", () => {
    writeFileSync(join(elsewhere, "demo"), readFileSync(EXAMPLE));
    expect(seedPath("./demo", elsewhere)).toBe(join(elsewhere, "demo"));
    expect(seedPath(EXAMPLE, elsewhere)).toBe(EXAMPLE);
    expect(seedPath("my-seed.json", elsewhere)).toBe(join(elsewhere, "my-seed.json"));
  });

  it("refuses a bare word that is neither a file nor a packaged seed, naming the packaged ones", async () => {
    const io = bufferIO({ cwd: elsewhere });
    expect(await run(["emulator", "--port", "0", "--seed", "dmeo"], io)).toBe(1);
    expect(io.err()).toBe(
      `doohctl emulator: --seed dmeo: no file "dmeo" in ${elsewhere} and no packaged seed of that name: give a seed file's path, or one of: demo\n`,
    );
  });

  it("finds the seed from the built package too (the bundle in dist/src/bin)", async () => {
    ensureBuilt();
    const child = spawnCli(["emulator", "--port", "0", "--seed", "demo"], { cwd: elsewhere, env: {} });
    await until(() => child.stderr().includes("Ctrl-C") || child.process.exitCode !== null);
    const origin = /listening on (http:\/\/\S+)/.exec(child.stderr())?.[1] ?? "";
    try {
      expect(child.stderr()).toContain("user: demo@doohctl.test (account 1, password demo-password)");
      expect(await campaignCount(origin)).toBe(12);
    } finally {
      child.process.kill("SIGINT");
    }
    expect(await child.exited).toBe(0);
  }, 180_000);
});
