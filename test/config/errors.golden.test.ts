/**
 * Golden tests of `doohctl validate` error output (text, colour off): one fixture per kind of
 * mistake a user makes, under fixtures/errors/. Each `NAME.yaml` (or directory `NAME/`) has
 * its expected stderr in `NAME.expected`. After an intended change of wording, regenerate
 * with `UPDATE_GOLDEN=1 npx vitest run test/config` and review the diff.
 *
 * Fixtures no YAML tool should parse (tabs, broken quotes, Latin-1 bytes) are stored as
 * `NAME.yaml.raw`, so that the repository's linter leaves them alone, and copied to a
 * temporary directory as `NAME.yaml` for the run.
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { printable } from "../../src/model/printable.js";
import { bufferIO } from "../helpers/io.js";

const DIR = fileURLToPath(new URL("./fixtures/errors/", import.meta.url));
const RAW_DIR = mkdtempSync(join(tmpdir(), "doohctl-config-raw-"));
const CASES = readdirSync(DIR)
  .filter((name) => !name.endsWith(".expected"))
  .map((name) => {
    if (!name.endsWith(".raw")) return { name, cwd: DIR };
    copyFileSync(join(DIR, name), join(RAW_DIR, name.slice(0, -4)));
    return { name: name.slice(0, -4), cwd: RAW_DIR };
  })
  .sort((a, b) => (a.name < b.name ? -1 : 1));

const TERMINAL_DIR = fileURLToPath(new URL("./fixtures/errors-terminal/", import.meta.url));
const TERMINAL_CASES = CASES.filter(({ name }) =>
  [
    "unclosed-bracket.yaml",
    "tab-cascade.yaml",
    "yaml-syntax.yaml",
    "stray-indent.yaml",
    "money.yaml",
    "password.yaml",
    "control-characters.yaml",
  ].includes(name),
);

describe("validate error output (golden)", () => {
  it.each(CASES)("reports $name at file:line:column with what to write instead", async ({ name, cwd }) => {
    const io = bufferIO({ cwd });
    const code = await run(["validate", name], io);
    expect(code).toBe(1);
    expect(io.out()).toBe("");
    const expectedFile = `${DIR}${name.replace(/\.yaml$/, "")}.expected`;
    if (process.env.UPDATE_GOLDEN === "1") writeFileSync(expectedFile, io.err());
    // A fixture without its expected output would pass whatever it printed: say how to make one.
    expect(
      existsSync(expectedFile),
      `${expectedFile} is missing: run with UPDATE_GOLDEN=1 and review it`,
    ).toBe(true);
    expect(io.err()).toBe(readFileSync(expectedFile, "utf8"));
  });

  // On a terminal each issue also shows its line, a caret under the spot (src/config/snippet.ts):
  // the YAML causes, a schema error, and a password's line, which is never quoted.
  it.each(TERMINAL_CASES)(
    "on a terminal shows the line of $name with a caret at the cause",
    async ({ name, cwd }) => {
      const io = bufferIO({ cwd, tty: true });
      expect(await run(["validate", name], io)).toBe(1);
      const expectedFile = `${TERMINAL_DIR}${name.replace(/\.yaml$/, "")}.expected`;
      if (process.env.UPDATE_GOLDEN === "1") writeFileSync(expectedFile, io.err());
      expect(io.err()).toBe(readFileSync(expectedFile, "utf8"));
      expect(io.err()).not.toContain("hunter2");
      expect(io.err()).not.toContain("also-secret");
    },
  );

  it("says the same thing in JSON as in text, issue by issue", async () => {
    for (const { name, cwd } of CASES) {
      const text = bufferIO({ cwd });
      const json = bufferIO({ cwd });
      await run(["validate", name], text);
      expect(await run(["validate", name, "--format", "json"], json)).toBe(1);
      const issues = JSON.parse(json.out()) as Array<Record<string, unknown>>;
      const lines = text.err().split("\n");
      for (const issue of issues) {
        const where = issue.line === 0 ? `${issue.file}` : `${issue.file}:${issue.line}:${issue.column}`;
        // The text shows control characters escaped (printable), JSON strings hold them as they are.
        const head = printable(`${where}: ${issue.path === "" ? "" : `${issue.path}: `}${issue.message}`);
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
