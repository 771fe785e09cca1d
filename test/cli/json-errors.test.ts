import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { bufferIO } from "../helpers/io.js";

interface JsonErrors {
  errors: { code: string; message: string; location: unknown; hint?: string }[];
}

function emptyDir(): string {
  return mkdtempSync(join(tmpdir(), "doohctl-json-errors-"));
}

/** Runs doohctl with --format json; stdout must be one JSON document and stderr silent. */
async function jsonRun(argv: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const io = bufferIO({ env: options.env ?? {}, cwd: options.cwd ?? emptyDir() });
  const code = await run([...argv, "--format", "json"], io);
  expect(io.err()).toBe("");
  return { code, doc: JSON.parse(io.out()) as JsonErrors };
}

describe("--format json errors", () => {
  it("plan: a config issue carries its code and file:line:column location", async () => {
    const cwd = emptyDir();
    writeFileSync(
      join(cwd, "doohctl.yaml"),
      "version: 1\ninsertion_orders:\n  - id: '1001'\n    colour: red\n",
    );
    const { code, doc } = await jsonRun(["plan"], { cwd });
    expect(code).toBe(1);
    expect(doc.errors).toEqual([
      expect.objectContaining({
        code: "UNKNOWN_KEY",
        location: { file: "doohctl.yaml", line: 4, column: 5, path: "insertion_orders[0].colour" },
      }),
    ]);
  });

  it("plan: missing credentials are CREDENTIALS_MISSING with no location", async () => {
    const cwd = emptyDir();
    writeFileSync(
      join(cwd, "doohctl.yaml"),
      "version: 1\nconnection: { api_origin: 'http://127.0.0.1:9' }\ninsertion_orders: []\n",
    );
    const { code, doc } = await jsonRun(["plan"], { cwd });
    expect(code).toBe(1);
    expect(doc.errors).toEqual([
      { code: "CREDENTIALS_MISSING", message: expect.stringMatching(/DOOHCTL_EMAIL/), location: null },
    ]);
  });

  it("apply: a missing saved plan is PLAN_FILE_NOT_FOUND", async () => {
    const { code, doc } = await jsonRun(["apply", "--plan", "plan.json", "--auto-approve"]);
    expect(code).toBe(1);
    expect(doc.errors).toEqual([
      { code: "PLAN_FILE_NOT_FOUND", message: expect.stringMatching(/doohctl plan -o/), location: null },
    ]);
  });

  it("apply: a refusal before any request is APPLY_REFUSED", async () => {
    const { code, doc } = await jsonRun(["apply", "--plan", "plan.json", "campaigns/"]);
    expect(code).toBe(1);
    expect(doc.errors[0]?.code).toBe("APPLY_REFUSED");
  });

  it("export: a usage problem is EXPORT_USAGE", async () => {
    const { code, doc } = await jsonRun(["export"]);
    expect(code).toBe(1);
    expect(doc.errors).toEqual([
      { code: "EXPORT_USAGE", message: expect.stringMatching(/--insertion-order ID/), location: null },
    ]);
  });

  it("show: an unreadable plan is PLAN_FILE_NOT_FOUND", async () => {
    const { code, doc } = await jsonRun(["show", "nowhere.json"]);
    expect(code).toBe(1);
    expect(doc.errors[0]?.code).toBe("PLAN_FILE_NOT_FOUND");
  });

  it("emulator: a bad flag is EMULATOR_FLAG_INVALID", async () => {
    const { code, doc } = await jsonRun(["emulator", "--port", "99999"]);
    expect(code).toBe(1);
    expect(doc.errors).toEqual([
      { code: "EMULATOR_FLAG_INVALID", message: expect.stringMatching(/--port/), location: null },
    ]);
  });

  it("any command: a usage error (unknown option) is USAGE, not commander's text", async () => {
    const { code, doc } = await jsonRun(["plan", "--colour"]);
    expect(code).toBe(1);
    expect(doc.errors).toEqual([
      {
        code: "USAGE",
        message: expect.stringMatching(/unknown option '--colour'.*doohctl --help/),
        location: null,
      },
    ]);
  });

  it("schema: takes --format json and prints the schema", async () => {
    const io = bufferIO({ env: {} });
    expect(await run(["schema", "--format", "json"], io)).toBe(0);
    expect(JSON.parse(io.out())).toHaveProperty("$schema");
  });

  it("validate: keeps its documented array of issues", async () => {
    const io = bufferIO({ env: {}, cwd: emptyDir() });
    expect(await run(["validate", "--format", "json"], io)).toBe(1);
    expect(JSON.parse(io.out())).toEqual([expect.objectContaining({ code: "FILE_NOT_FOUND" })]);
  });

  it("without --format json, errors stay text on stderr and stdout stays empty", async () => {
    const io = bufferIO({ env: {}, cwd: emptyDir() });
    expect(await run(["export"], io)).toBe(1);
    expect(io.out()).toBe("");
    expect(io.err()).toMatch(/^doohctl export: say what to export/);
  });
});

describe("--format json errors: status and doctor, and codes that say what happened", () => {
  it("status: every config issue is its own error at its place, not one folded string", async () => {
    const cwd = emptyDir();
    writeFileSync(
      join(cwd, "doohctl.yaml"),
      "version: 1\ninsertion_orders:\n  - id: '1001'\n    colour: red\n    shade: blue\n",
    );
    const { code, doc } = await jsonRun(["status"], { cwd });
    expect(code).toBe(1);
    expect(doc.errors).toEqual([
      expect.objectContaining({
        code: "UNKNOWN_KEY",
        location: { file: "doohctl.yaml", line: 4, column: 5, path: "insertion_orders[0].colour" },
      }),
      expect.objectContaining({
        code: "UNKNOWN_KEY",
        location: { file: "doohctl.yaml", line: 5, column: 5, path: "insertion_orders[0].shade" },
      }),
    ]);
  });

  it("status: a --behind-threshold that is no percentage is USAGE", async () => {
    const { code, doc } = await jsonRun(["status", "--behind-threshold", "ten"]);
    expect(code).toBe(1);
    expect(doc.errors).toEqual([
      {
        code: "USAGE",
        message: expect.stringMatching(/--behind-threshold ten is not a percentage/),
        location: null,
      },
    ]);
  });

  it("doctor: a --max-reads out of range is USAGE in the errors document", async () => {
    const { code, doc } = await jsonRun(["doctor", "--max-reads", "0"]);
    expect(code).toBe(1);
    expect(doc.errors).toEqual([
      {
        code: "USAGE",
        message: expect.stringMatching(/--max-reads 0 is not a whole number/),
        location: null,
      },
    ]);
  });

  it("plan: --target with --changed-since is USAGE, not a git revision error", async () => {
    const cwd = emptyDir();
    writeFileSync(join(cwd, "doohctl.yaml"), "version: 1\ninsertion_orders: []\n");
    const { code, doc } = await jsonRun(["plan", "--target", "1001", "--changed-since", "main"], { cwd });
    expect(code).toBe(1);
    expect(doc.errors).toEqual([
      { code: "USAGE", message: expect.stringMatching(/--changed-since and --target/), location: null },
    ]);
  });
});

describe("--format json errors: the remaining commands", () => {
  it("plan: -o into a directory that does not exist is PLAN_OUTPUT_DIR, naming it, before reading anything", async () => {
    const { code, doc } = await jsonRun(["plan", "-o", "nodir/plan.json"]);
    expect(code).toBe(1);
    expect(doc.errors).toEqual([
      {
        code: "PLAN_OUTPUT_DIR",
        message:
          "-o nodir/plan.json: the directory nodir does not exist: create it first (mkdir -p nodir) or choose another -o FILE",
        location: null,
      },
    ]);
  });

  it("schema: a usage error is USAGE in the errors document", async () => {
    const { code, doc } = await jsonRun(["schema", "--output", "x"]);
    expect(code).toBe(1);
    expect(doc.errors).toEqual([
      { code: "USAGE", message: expect.stringMatching(/unknown option '--output'/), location: null },
    ]);
  });
});
