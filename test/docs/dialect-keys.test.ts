/**
 * docs/assumptions.md#dialect lists every key of the dialect table (src/model/dialect.ts), with
 * its decision, its default and what it adapts, and the G table names each key beside its
 * decision: a key added to the table and not to the page fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_DIALECT, DIALECT_KEYS, dialectValue } from "../../src/model/dialect.js";

const page = readFileSync(join(import.meta.dirname, "..", "..", "docs", "assumptions.md"), "utf8");
const cells = (line: string) =>
  line
    .split("|")
    .slice(1, -1)
    .map((c) => c.trim());

describe("docs/assumptions.md, Dialect", () => {
  const section = page.slice(
    page.indexOf("## Dialect"),
    page.indexOf("\n## ", page.indexOf("## Dialect") + 1),
  );
  const rows = section.split("\n").filter((line) => line.startsWith("| `"));

  it("has one row per key, in the table's order", () => {
    expect(rows.map((row) => cells(row)[0])).toEqual(DIALECT_KEYS.map((k) => `\`${k.key}\``));
  });

  it.each(DIALECT_KEYS.map((k) => [k.key, k] as const))("row %s: decision, default and words", (_, key) => {
    const row = cells(rows.find((r) => r.startsWith(`| \`${key.key}\``))!);
    expect(row[1]).toContain(key.gap);
    expect(row[2]).toBe(`\`${String(dialectValue(DEFAULT_DIALECT, key.key))}\``);
    expect(row[3]).toBe(key.adapts);
  });

  it("names each key beside its decision in the G table", () => {
    for (const key of DIALECT_KEYS) {
      const row = page.split("\n").find((line) => line.startsWith(`| <a id="${key.gap.toLowerCase()}"></a>`));
      expect(row, key.gap).toContain(`\`${key.key}\``);
    }
  });
});
