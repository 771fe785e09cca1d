/**
 * The source line a terminal shows under a config error (src/config/snippet.ts), and the hint
 * of an unclosed quote (syntax-cause.ts): never a line that could hold a credential or the run's password.
 */
import { describe, expect, it } from "vitest";
import { sourceSnippet } from "../../src/config/snippet.js";
import { parseYaml } from "../../src/config/yaml/read.js";
import { Scrubber } from "../../src/model/scrub.js";

describe("sourceSnippet", () => {
  it("puts the caret under the column, counted on the escaped text of control characters", () => {
    expect(sourceSnippet('a: 1\nname: "\u001b[2J" x\n', 2, 14)).toEqual([
      "  |",
      '2 | name: "\\u001b[2J" x',
      "  |                   ^",
    ]);
  });

  it("quotes no line holding a password-like key, a token or the run's own password", () => {
    const text = [
      "  password: hunter2",
      "  pacing: { strategy: even, api_key: abc123 }",
      "  note: ghp_0123456789abcdefghijABCDEFGHIJ",
      "  name: Winter-Sale-2026",
    ].join("\n");
    expect(sourceSnippet(text, 1, 3)).toBeUndefined();
    expect(sourceSnippet(text, 2, 29)).toBeUndefined();
    expect(sourceSnippet(text, 3, 9)).toBeUndefined();
    expect(sourceSnippet(text, 4, 9, new Scrubber(["Winter-Sale-2026"]))).toBeUndefined();
    expect(sourceSnippet(text, 4, 9)?.[1]).toBe("4 |   name: Winter-Sale-2026");
  });

  it("cuts a long line to the part around the caret", () => {
    const line = `name: ${"a".repeat(200)}X${"b".repeat(200)}`;
    const [, shown, caret] = sourceSnippet(line, 1, 207) ?? [];
    expect(shown).toBe(`1 | …${"a".repeat(36)}X${"b".repeat(29)}…`);
    expect(sourceSnippet(`name: ${"a".repeat(60)}`, 1, 7)?.[1]).toBe(`1 | name: ${"a".repeat(60)}`);
    expect(caret?.indexOf("^")).toBe(shown?.indexOf("X"));
    expect(shown?.length).toBeLessThanOrEqual(80);
  });

  it("shows nothing for a whole-file issue, a blank line or a line past the end", () => {
    expect(sourceSnippet("a: 1\n\n", 0, 0)).toBeUndefined();
    expect(sourceSnippet("a: 1\n\n", 2, 1)).toBeUndefined();
    expect(sourceSnippet("a: 1\n", 9, 1)).toBeUndefined();
  });
});

describe("an unclosed quote's hint", () => {
  it("completes the line, unless the line looks like it holds a credential", () => {
    const plain = parseYaml('version: 1\nnote: "holiday\n', "a.yaml").issues;
    expect(plain.map((i) => [i.line, i.column, i.hint])).toEqual([[2, 7, 'write "holiday"']]);
    const secret = parseYaml('version: 1\napi_token: "s3cr3t-value\n', "b.yaml").issues;
    expect(secret.map((i) => [i.line, i.column, i.hint])).toEqual([[2, 12, undefined]]);
    expect(JSON.stringify(secret)).not.toContain("s3cr3t");
  });
});
