/**
 * Golden tests of `doohctl validate` error output (text, colour off): one fixture per kind of
 * mistake a user makes, under fixtures/errors/. Each `NAME.yaml` (or directory `NAME/`) has
 * its expected stderr in `NAME.expected`. After an intended change of wording, regenerate
 * with `UPDATE_GOLDEN=1 npx vitest run test/config` and review the diff.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { bufferIO } from "../helpers/io.js";

const DIR = fileURLToPath(new URL("./fixtures/errors/", import.meta.url));
const CASES = readdirSync(DIR)
  .filter((name) => !name.endsWith(".expected"))
  .sort();

describe("validate error output (golden)", () => {
  it.each(CASES)("reports %s at file:line:column with what to write instead", async (name) => {
    const io = bufferIO({ cwd: DIR });
    const code = await run(["validate", name], io);
    expect(code).toBe(1);
    expect(io.out()).toBe("");
    const expectedFile = `${DIR}${name.replace(/\.yaml$/, "")}.expected`;
    if (process.env.UPDATE_GOLDEN === "1" || !existsSync(expectedFile)) {
      writeFileSync(expectedFile, io.err());
    }
    expect(io.err()).toBe(readFileSync(expectedFile, "utf8"));
  });

  it("says the same thing in JSON as in text, issue by issue", async () => {
    for (const name of CASES) {
      const text = bufferIO({ cwd: DIR });
      const json = bufferIO({ cwd: DIR });
      await run(["validate", name], text);
      expect(await run(["validate", name, "--format", "json"], json)).toBe(1);
      const issues = JSON.parse(json.out()) as Array<Record<string, unknown>>;
      const lines = text.err().split("\n");
      for (const issue of issues) {
        const where = issue.line === 0 ? `${issue.file}` : `${issue.file}:${issue.line}:${issue.column}`;
        const head = `${where}: ${issue.path === "" ? "" : `${issue.path}: `}${issue.message}`;
        expect(lines).toContain(head);
        expect(Object.keys(issue)).toEqual([
          "file",
          "line",
          "column",
          "path",
          "message",
          ...(issue.hint === undefined ? [] : ["hint"]),
          "code",
        ]);
      }
      expect(lines.at(-2)).toBe(`invalid: ${issues.length} error${issues.length === 1 ? "" : "s"}`);
    }
  });
});
