import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { exampleSeed } from "../helpers/example-seed.js";
import { bufferIO } from "../helpers/io.js";

/** The renderers' golden files: the JSON one is a saved plan, as `plan -o` writes it. */
const GOLDEN = join(import.meta.dirname, "..", "render", "golden");
const SAVED = join(GOLDEN, "rich.json.golden");
const golden = (name: string) => readFileSync(join(GOLDEN, name), "utf8");

/** No credentials, no origin: show must need neither. */
const offline = () => bufferIO({ env: {} });

describe("doohctl show PLAN_FILE", () => {
  it("renders a saved plan as text exactly as plan printed it, with no credentials or network", async () => {
    const io = offline();
    expect(await run(["show", SAVED], io)).toBe(0);
    expect(io.out()).toBe(golden("rich.txt"));
    expect(io.err()).toBe("");
  });

  it("renders the markdown a pull-request comment shows", async () => {
    const io = offline();
    expect(await run(["show", SAVED, "--format", "markdown"], io)).toBe(0);
    expect(io.out()).toBe(golden("rich.md.golden"));
  });

  it("renders JSON byte for byte as the saved file", async () => {
    const io = offline();
    expect(await run(["show", SAVED, "--format", "json"], io)).toBe(0);
    expect(io.out()).toBe(golden("rich.json.golden"));
  });

  it("shows a plan saved against the emulator exactly as plan printed it, in every format", async () => {
    const root = join(import.meta.dirname, "..", "..");
    const { seed, clock } = await exampleSeed();
    const emulator = (await startCliAccount({ seed, emulator: { clock } })).emulator;
    try {
      const dir = mkdtempSync(join(tmpdir(), "doohctl-show-"));
      const env = {
        DOOHCTL_API_ORIGIN: emulator.origin,
        DOOHCTL_EMAIL: "demo@doohctl.test",
        DOOHCTL_PASSWORD: "demo-password",
        HOME: dir,
      };
      const config = join(root, "examples", "quickstart", "doohctl.yaml");
      for (const format of ["text", "markdown", "json"]) {
        const planned = bufferIO({ env, cwd: dir, clock });
        const args = ["plan", config, "-o", `plan-${format}.json`, "--format", format, "--no-session-cache"];
        expect(await run(args, planned), planned.err()).toBe(0);
        const shown = offline();
        expect(await run(["show", join(dir, `plan-${format}.json`), "--format", format], shown)).toBe(0);
        expect(shown.out()).toBe(planned.out());
        expect(shown.out()).not.toContain("demo-password");
      }
    } finally {
      await emulator.close();
    }
  });

  it("reads a path relative to the working directory", async () => {
    const io = bufferIO({ env: {}, cwd: GOLDEN });
    expect(await run(["show", "rich.json.golden", "--format", "markdown"], io)).toBe(0);
    expect(io.out()).toBe(golden("rich.md.golden"));
  });

  it("says a missing plan file does not exist and how to make one, never ENOENT", async () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-show-"));
    const io = bufferIO({ env: {}, cwd: dir });
    expect(await run(["show", "plan.json"], io)).toBe(1);
    expect(io.err()).toBe(
      "doohctl show: plan.json does not exist: save a plan first with doohctl plan -o plan.json, or check the path\n",
    );
    expect(io.err()).not.toContain("ENOENT");
  });

  it("prints the error as JSON with --format json", async () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-show-"));
    writeFileSync(join(dir, "plan.json"), "<html>502 Bad Gateway</html>");
    const io = bufferIO({ env: {}, cwd: dir });
    expect(await run(["show", "plan.json", "--format", "json"], io)).toBe(1);
    const { errors } = JSON.parse(io.out()) as { errors: { code: string; message: string }[] };
    expect(errors).toEqual([
      {
        code: "PLAN_FILE_NOT_JSON",
        message: expect.stringContaining("plan.json is not a plan file"),
        location: null,
      },
    ]);
    expect(io.err()).toBe("");
  });
});
