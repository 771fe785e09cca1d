/**
 * Scale: no spread of a large array anywhere in config and plan. `push(...items)`
 * puts every item on the stack, and past ~125,000 items the load threw "Maximum call stack
 * size exceeded" instead of validating or reporting.
 *
 * This file runs with an eighth of Node's stack (vitest.config.ts, project small-stack), where
 * a spread overflows at an eighth of the items (about 15,000): 20,000 creatives, valid or
 * not, stand for the 200,000 and 150,000 of docs/safety.md at the default, for an eighth of
 * the CPU. The first test holds the file to it: on Node's default stack it fails rather than
 * let the others prove nothing.
 */
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/issues.js";
import { loadConfig } from "../../src/config/load.js";
import { append, largest } from "../../src/model/append.js";

function oneFile(text: string) {
  const path = "/config/creatives.yaml";
  return {
    cwd: "/config",
    readFile: async (p: string) => {
      if (p !== path) throw Object.assign(new Error("no such file"), { code: "ENOENT" });
      return new TextEncoder().encode(text);
    },
    listDirectory: async () => undefined,
  };
}

function creatives(count: number, line: (i: number) => string): string {
  const lines = ["version: 1", "creatives:"];
  for (let i = 0; i < count; i++) lines.push(line(i));
  return `${lines.join("\n")}\n`;
}

/** Past what a spread takes on this file's stack. */
const MANY = 20_000;

describe("a config at scale", () => {
  it("runs on a stack a spread of 20,000 items overflows", () => {
    expect(() => [].push(...(Array.from({ length: MANY }) as never[]))).toThrow(RangeError);
  });

  it("validates 20,000 creatives in one file", async () => {
    const text = creatives(MANY, (i) => `  - { id: "${9_000_000 + i}", category_ids: ["3"] }`);
    const state = await loadConfig(["creatives.yaml"], oneFile(text));
    expect(state.creatives).toHaveLength(MANY);
    expect(state.creatives[MANY - 1]?.id).toBe(String(9_000_000 + MANY - 1));
  });

  it("reports 20,000 invalid entries, every one", async () => {
    const text = creatives(MANY, (i) => `  - { id: "${9_000_000 + i}", colour: red }`);
    const error = await loadConfig(["creatives.yaml"], oneFile(text)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const issues = (error as ConfigError).issues;
    expect(issues).toHaveLength(MANY);
    expect(issues[MANY - 1]).toMatchObject({ code: "UNKNOWN_KEY", line: MANY + 2 });
  });

  it("says the same of a long list, checked item by item, as of a short one", async () => {
    const bad = [`  - { id: "9", colour: red }`, `  - { id: "10", pixel_url: 7 }`, `  - { id: 11.5 }`];
    const short = creatives(3, (i) => bad[i]!);
    const long = creatives(1_503, (i) => (i >= 1_500 ? bad[i - 1_500]! : `  - { id: "${20_000 + i}" }`));
    const issuesOf = async (text: string) =>
      (
        (await loadConfig(["creatives.yaml"], oneFile(text)).catch((e: unknown) => e)) as ConfigError
      ).issues.map((i) => ({
        ...i,
        line: i.line > 1_000 ? i.line - 1_500 : i.line,
        path: i.path.replace(/\[150(\d)\]/, "[$1]"),
      }));
    const expected = await issuesOf(short);
    expect(expected.map((i) => i.code)).toEqual(["UNKNOWN_KEY", "WRONG_TYPE", "WRONG_TYPE"]);
    expect(await issuesOf(long)).toEqual(expected);
  });

  it("appends and takes the largest of 500,000 items without the stack", () => {
    const many = Array.from({ length: 500_000 }, (_, i) => i);
    expect(() => [].push(...(many as never[]))).toThrow(RangeError);
    expect(append([-1], many)).toHaveLength(500_001);
    expect(largest(many)).toBe(499_999);
    expect(largest([])).toBe(Number.NEGATIVE_INFINITY);
  });
});
