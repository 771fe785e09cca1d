/**
 * Stage 1 reads every config through `yaml`: the shapes configs are written in (anchors,
 * aliases, `<<` merge keys, flow and block styles, quoting, comments) come out as plain
 * values with no issue, and every example config reads cleanly.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseYaml } from "../../../src/config/yaml/read.js";

describe("the YAML reader", () => {
  it.each([
    ["base: &b { x: 1, y: 2 }\nc:\n  <<: *b\n  y: 3\n", { base: { x: 1, y: 2 }, c: { x: 1, y: 3 } }],
    [
      "base: &b\n  x: 1\nother: &o\n  z: 2\nc:\n  <<: [*b, *o]\n  w: 0\n",
      { base: { x: 1 }, other: { z: 2 }, c: { x: 1, z: 2, w: 0 } },
    ],
    ["l: &l [1, 2]\nm: *l\nn: &s hello\np: *s\n", { l: [1, 2], m: [1, 2], n: "hello", p: "hello" }],
    ["a:\n  - &x {k: v}\n  - *x\n", { a: [{ k: "v" }, { k: "v" }] }],
    ["a: { <<: {q: 1}, r: 2 }\n", { a: { q: 1, r: 2 } }],
    ["a:\n  <<: {q: 1}\n  q: 2\n", { a: { q: 2 } }],
    ["a:\n  q: 2\n  <<: {q: 1, t: 3}\n", { a: { q: 2, t: 3 } }],
    ["'<<': 1\nb: 2\n", { "<<": 1, b: 2 }],
    ["a: [ x: 1, y: 2 ]\n", { a: [{ x: 1 }, { y: 2 }] }],
    ["a: \n  b: \n", { a: { b: null } }],
    ["a: b # c\n# d\n", { a: "b" }],
    ["---\na: 1\n", { a: 1 }],
    ["a: 'it''s'\nb: \"tab\\there\"\n", { a: "it's", b: "tab\there" }],
    ["b: &b {x: 1}\nx: {c: 3, <<: [*b]}\n", { b: { x: 1 }, x: { c: 3, x: 1 } }],
    ["x: {a: b,\n  c: [1, 2] # hi\n  }\n# d\ny: [ ]\n", { x: { a: "b", c: [1, 2] }, y: [] }],
    [
      "at: 2026-12-01T00:00:00Z\nn: -0\nid: 12345678901234567890\n",
      { at: "2026-12-01T00:00:00Z", n: 0, id: 12345678901234567890n },
    ],
  ])("reads %j", (text, value) => {
    const parsed = parseYaml(text, "c.yaml");
    expect(parsed.issues).toEqual([]);
    expect(parsed.usable).toBe(true);
    expect(parsed.value).toEqual(value);
  });

  it("reads every example config without an issue", () => {
    for (const dir of ["examples/quickstart", "examples/multi-file"]) {
      for (const name of readdirSync(dir).filter((n) => n.endsWith(".yaml"))) {
        const parsed = parseYaml(readFileSync(join(dir, name), "utf8"), `${dir}/${name}`);
        expect(parsed.issues, `${dir}/${name}`).toEqual([]);
        expect(parsed.usable, `${dir}/${name}`).toBe(true);
      }
    }
  });
});
