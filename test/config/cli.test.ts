import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { bufferIO } from "../helpers/io.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function tempDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "doohctl-validate-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe("doohctl validate", () => {
  it("exits 0 with a one-line summary of what the files declare", async () => {
    const io = bufferIO({ cwd: ROOT });
    expect(await run(["validate", "examples/multi-file"], io)).toBe(0);
    expect(io.out()).toBe("valid: 2 insertion orders, 5 campaigns, 3 creatives (4 files)\n");
    expect(io.err()).toBe("");
  });

  it("reads doohctl.yaml in the working directory when given no path", async () => {
    const cwd = tempDir({
      "doohctl.yaml": "version: 1\ninsertion_orders:\n  - id: '1'\n    campaigns: [{ name: A }]\n",
    });
    const io = bufferIO({ cwd });
    expect(await run(["validate"], io)).toBe(0);
    expect(io.out()).toBe("valid: 1 insertion order, 1 campaign, 0 creatives (1 file)\n");
  });

  it("exits 1 with every error on stderr and nothing on stdout", async () => {
    const cwd = tempDir({
      "doohctl.yaml":
        "version: 1\ninsertion_orders:\n  - id: '1'\n    campaigns:\n      - name: A\n        cpm: 12.5\n",
    });
    const io = bufferIO({ cwd });
    expect(await run(["validate"], io)).toBe(1);
    expect(io.out()).toBe("");
    expect(io.err()).toBe(
      'doohctl.yaml:6:14: insertion_orders[0].campaigns[0].cpm: money needs a currency: write "12.5 USD"\ninvalid: 1 error\n',
    );
  });

  it("on a terminal, plan shows a config error's line and a caret; --format json the same issue, without it", async () => {
    const cwd = tempDir({
      "doohctl.yaml":
        "version: 1\ninsertion_orders:\n  - id: '1'\n    campaigns:\n      - name: A\n        cpm: 12.5\n",
    });
    const terminal = bufferIO({ cwd, tty: true });
    expect(await run(["plan"], terminal)).toBe(1);
    expect(terminal.err()).toBe(
      [
        'doohctl.yaml:6:14: insertion_orders[0].campaigns[0].cpm: money needs a currency: write "12.5 USD"',
        "  |",
        "6 |         cpm: 12.5",
        "  |              ^",
        "",
      ].join("\n"),
    );
    const json = bufferIO({ cwd, tty: true });
    expect(await run(["plan", "--format", "json"], json)).toBe(1);
    expect(JSON.parse(json.out())).toEqual({
      errors: [
        {
          code: "MONEY_INVALID",
          message: 'money needs a currency: write "12.5 USD"',
          location: {
            file: "doohctl.yaml",
            line: 6,
            column: 14,
            path: "insertion_orders[0].campaigns[0].cpm",
          },
        },
      ],
    });
  });

  it("with --format json prints the issues as a JSON array on stdout", async () => {
    const cwd = tempDir({ "doohctl.yaml": "version: 1\ninsertion_order: []\n" });
    const io = bufferIO({ cwd });
    expect(await run(["validate", "--format", "json"], io)).toBe(1);
    expect(io.err()).toBe("");
    expect(JSON.parse(io.out())).toEqual([
      {
        file: "doohctl.yaml",
        line: 2,
        column: 1,
        path: "insertion_order",
        message: 'unknown key "insertion_order"',
        hint: 'did you mean "insertion_orders"?',
        code: "UNKNOWN_KEY",
      },
    ]);
  });

  it("with --format json prints an empty array for a valid config", async () => {
    const io = bufferIO({ cwd: ROOT });
    expect(await run(["validate", "examples/multi-file", "--format", "json"], io)).toBe(0);
    expect(JSON.parse(io.out())).toEqual([]);
  });

  it("refuses an unknown output format as a usage error", async () => {
    const io = bufferIO({ cwd: ROOT });
    expect(await run(["validate", "--format", "yaml"], io)).toBe(1);
    expect(io.err()).toMatch(/Allowed choices are text, json/);
  });

  it("sends no request: an origin nobody listens on does not matter", async () => {
    const io = bufferIO({ cwd: ROOT, env: { DOOHCTL_API_ORIGIN: "https://127.0.0.1:1" } });
    expect(await run(["validate", "examples/multi-file"], io)).toBe(0);
  });
});

describe("doohctl schema", () => {
  it("prints the shipped JSON Schema byte for byte", async () => {
    const io = bufferIO();
    expect(await run(["schema"], io)).toBe(0);
    expect(io.out()).toBe(readFileSync(join(ROOT, "schemas/doohctl.schema.json"), "utf8"));
    const schema = JSON.parse(io.out()) as { $id: string; $schema: string };
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
  });
});
