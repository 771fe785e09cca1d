/**
 * The docs state the defaults the code uses: for every command with a docs/<command>.md page,
 * each option that has a default in the code (commander's, what `--help` prints) and a row in
 * that page's option table must name the same value, in the table's `default` column or as
 * "Default `X`" in the row. A default the docs do not state is not checked here.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import type { CliIO } from "../../src/cli/io.js";
import { COMMANDS } from "../../src/cli/program.js";

const root = join(import.meta.dirname, "..", "..");

/** Each table row of `page` that starts with the option, with the table's header cells. */
function rows(page: string, long: string): { header: string[]; cells: string[] }[] {
  const found: { header: string[]; cells: string[] }[] = [];
  let header: string[] = [];
  const cellsOf = (line: string) =>
    line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.replace(/\\\|/g, "|").trim());
  for (const line of readFileSync(page, "utf8").split("\n")) {
    if (!line.startsWith("|")) {
      header = [];
      continue;
    }
    if (header.length === 0) {
      header = cellsOf(line).map((c) => c.toLowerCase());
      continue;
    }
    const cells = cellsOf(line);
    if (new RegExp(`^\`${long}[\` ]`).test(cells[0] ?? "")) found.push({ header, cells });
  }
  return found;
}

function documentedDefault(row: { header: string[]; cells: string[] }): string | undefined {
  const column = row.header.indexOf("default");
  if (column > 0) return /^`([^`]*)`$/.exec(row.cells[column] ?? "")?.[1];
  return /\bDefault `([^`]+)`/.exec(row.cells.join(" | "))?.[1];
}

describe("documented defaults", () => {
  it("equal the code's for every option a command's page documents with a default", async () => {
    const io = { stdout: { write: () => true }, stderr: { write: () => true } } as unknown as CliIO;
    const checked: string[] = [];
    const wrong: string[] = [];
    for (const entry of COMMANDS) {
      const page = join(root, "docs", `${entry.name}.md`);
      if (!existsSync(page)) continue;
      const program = new Command();
      (await entry.load())(program, io, () => {});
      const command = program.commands.find((c) => c.name() === entry.name);
      for (const option of command?.options ?? []) {
        const value: unknown = option.defaultValue;
        if (!option.long || (typeof value !== "string" && typeof value !== "number")) continue;
        for (const row of rows(page, option.long)) {
          const documented = documentedDefault(row);
          if (documented === undefined) continue;
          checked.push(`${entry.name} ${option.long}`);
          if (documented !== String(value))
            wrong.push(
              `docs/${entry.name}.md: ${option.long} default \`${documented}\`, the code's is \`${value}\``,
            );
        }
      }
    }
    expect(wrong).toEqual([]);
    // The scan reads real tables: export's --schema and the emulator's --port at least.
    expect(checked).toEqual(expect.arrayContaining(["export --schema", "emulator --port"]));
  });
});
