/**
 * The fast reader (js-yaml events) against the full reader (`yaml`), which stays the
 * reference: wherever the fast reader answers, it answers exactly what the full reader
 * would (the same values, to the sign of a zero, and the same recorded positions), and the
 * full reader finds nothing wrong; everything else it hands over. Checked on generated
 * documents in many styles and on randomly broken ones.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { dump } from "js-yaml";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { SourceIndex } from "../../../src/config/source-index.js";
import { readPlainYaml } from "../../../src/config/yaml/fast-reader.js";
import { parseYamlFully } from "../../../src/config/yaml/full-reader.js";

/**
 * Every value with its type, and every recorded offset with its line and column, in
 * document order: two readings are the same exactly when these lists are equal.
 */
function reading(value: unknown, index: SourceIndex): string[] {
  const out: string[] = [];
  const at = (offset: number) => `${offset}@${index.position(offset).line}:${index.position(offset).column}`;
  const walk = (node: unknown, path: string) => {
    if (typeof node !== "object" || node === null) {
      const shown = Object.is(node, -0) ? "-0" : String(node);
      out.push(`${path} ${typeof node} ${shown}`);
      return;
    }
    const offsets = index.offsetsOf(node);
    out.push(`${path} ${Array.isArray(node) ? "list" : "map"} at ${offsets ? at(offsets.offset) : "?"}`);
    if (Array.isArray(node)) {
      node.forEach((item, i) => {
        out.push(`${path}[${i}] item at ${at(offsets?.items?.[i] ?? -1)}`);
        walk(item, `${path}[${i}]`);
      });
      return;
    }
    for (const key of Object.keys(node)) {
      const where = offsets?.keys?.get(key);
      out.push(`${path}.${key} key at ${where ? `${at(where.key)} value at ${at(where.value)}` : "?"}`);
      walk((node as Record<string, unknown>)[key], `${path}.${key}`);
    }
  };
  walk(value, "$");
  return out;
}

/** Fails when the fast reader answers differently from the full one; true when it answered. */
function agrees(text: string): boolean {
  const fast = readPlainYaml(text, "c.yaml");
  if (fast === undefined) return false;
  const full = parseYamlFully(text, "c.yaml");
  expect(full.issues).toEqual([]);
  expect(reading(fast.value, fast.index)).toEqual(reading(full.value, full.index));
  return true;
}

const tricky = [
  ...["", " ", "null", "Null", "~", "-0", "0o17", "0o8", "+12", "012", "0x1F", "1e3", "1e999"],
  ...["12345678901234567890", ".inf", "-.Inf", ".NaN", "1_000", "2026-12-01T00:00:00Z", "true"],
  ...["TRUE", "tRue", "yes", "a\tb", "a\nb", "é", "\u2028", "x: y", "- a", "#c", "a #c", "'", '"'],
  ...["\\", "[a]", "{a}", "&a", "*a", "!t", "%", "@", "`", "<<", "__proto__", "12.50 USD"],
];
const scalar = fc.oneof(
  fc.constantFrom(...tricky),
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(2 ** 53, -(2 ** 53) - 2, 1e21, -0),
);
const { doc } = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: "small" }, scalar, tie("list"), tie("doc")),
  list: fc.array(tie("node"), { maxLength: 4 }),
  doc: fc.dictionary(fc.oneof(fc.constantFrom(...tricky), fc.string({ maxLength: 4 })), tie("node"), {
    maxKeys: 4,
  }),
}));

/** The same data as `yaml` and js-yaml write it, in their block, flow and quoting styles. */
const written = fc.oneof(
  fc
    .tuple(
      doc,
      fc.record({
        collectionStyle: fc.constantFrom("any", "block", "flow"),
        defaultStringType: fc.constantFrom("PLAIN", "QUOTE_DOUBLE", "QUOTE_SINGLE"),
        defaultKeyType: fc.constantFrom(null, "PLAIN", "QUOTE_DOUBLE", "QUOTE_SINGLE"),
        indent: fc.integer({ min: 1, max: 4 }),
        indentSeq: fc.boolean(),
        lineWidth: fc.constantFrom(0, 20, 80),
      } as const),
    )
    .map(([value, options]) => stringify(value, options)),
  fc
    .tuple(
      doc,
      fc.record({
        flowLevel: fc.integer({ min: -1, max: 3 }),
        quoteStyle: fc.constantFrom("single", "double"),
        forceQuotes: fc.boolean(),
        seqNoIndent: fc.boolean(),
        flowBracketPadding: fc.boolean(),
        indent: fc.integer({ min: 1, max: 4 }),
      } as const),
      fc.boolean(),
    )
    .map(([value, options, crlf]) => {
      const text = dump(value, options);
      return crlf ? text.replace(/\n/g, "\r\n") : text;
    }),
);

/** Documents with anchors, aliases and merge keys, which the generators above never write. */
const reused = [
  "base: &b { x: 1, y: 2 }\nc:\n  <<: *b\n  y: 3\n",
  "base: &b\n  x: 1\nother: &o\n  z: 2\nc:\n  <<: [*b, *o]\n  w: 0\n",
  "l: &l [1, 2]\nm: *l\nn: &s hello\np: *s\n",
  "a:\n  - &x {k: v}\n  - *x\n",
  "a: { <<: {q: 1}, r: 2 }\n",
  "a:\n  <<: {q: 1}\n  q: 2\n",
  "a:\n  q: 2\n  <<: {q: 1, t: 3}\n",
  "'<<': 1\nb: 2\n",
  "a: [ x: 1, y: 2 ]\n",
  "a: \n  b: \n",
  "a: b # c\n# d\n",
  "---\na: 1\n",
  "a: 'it''s'\nb: \"tab\\there\"\n",
  "b: &b {x: 1}\nx: {c: 3, <<: [*b]}\n",
  "x: {a: b,\n  c: [1, 2] # hi\n  }\n# d\ny: [ ]\n",
];

/** Random damage: characters YAML gives meaning to, deletions and repeated lines. */
const broken = fc
  .tuple(
    fc.oneof(written, fc.constantFrom(...reused)),
    fc.array(
      fc.tuple(
        fc.nat(),
        fc.constantFrom(..." \t\n\r-:?[]{},#!|>'\"%@".split(""), "&a", "*a", "<<: ", "...", "del", "dup"),
      ),
      { minLength: 1, maxLength: 3 },
    ),
  )
  .map(([text, edits]) => {
    let out = text;
    for (const [n, edit] of edits) {
      const at = n % (out.length + 1);
      if (edit === "del") out = out.slice(0, at) + out.slice(at + 1);
      else if (edit === "dup") {
        const lines = out.split("\n");
        lines.splice(n % lines.length, 0, lines[n % lines.length] ?? "");
        out = lines.join("\n");
      } else out = out.slice(0, at) + edit + out.slice(at);
    }
    return out;
  });

describe("the fast YAML reader", () => {
  it("reads what the full reader reads, value for value and position for position", () => {
    let answered = 0;
    fc.assert(
      fc.property(written, (text) => {
        if (agrees(text)) answered++;
      }),
      { numRuns: 400 },
    );
    // Most generated documents are within its reach; a reader that handed everything over
    // would pass the property above and be useless.
    expect(answered).toBeGreaterThan(200);
  });

  it("reads anchors, aliases and merge keys as the full reader does", () => {
    for (const text of reused) expect(agrees(text), text).toBe(true);
  });

  it("never accepts a broken document that the full reader refuses", () => {
    fc.assert(
      fc.property(broken, (text) => void agrees(text)),
      { numRuns: 1500 },
    );
  });

  it.each([
    ["a syntax error", "a: [1, 2\n"],
    ["a duplicate key", "a: 1\na: 2\n"],
    ["an alias loop", "a: &x\n  b: *x\n"],
    ["a merge of its own mapping", "a: &x\n  <<: *x\n"],
    ["a merge of a list item that is not a map", "a: &x 1\nb:\n  <<: *x\n"],
    ["an unknown alias", "a: *nowhere\n"],
    ["a tag", "a: !!str 12\n"],
    ["a directive", "%YAML 1.2\n---\na: 1\n"],
    ["two documents", "a: 1\n---\nb: 2\n"],
    ["a document end marker", "a: 1\n...\n"],
    ["an empty file", ""],
    ["only comments", "# nothing\n"],
    ["a bare scalar", "hello\n"],
    ["a literal block scalar", "a: |\n  text\n"],
    ["a folded block scalar", "a: >-\n  text\n"],
    ["an integer beyond 2^53", "id: 12345678901234567890\n"],
    ["a float beyond a double", "x: 1e999\n"],
    ["a lone carriage return", "a: 1\rb: 2\n"],
    ["a tab in indentation", "a:\n\tb: 1\n"],
    ["an indented document marker", " ---\na: 1\n"],
    ["an empty key", ": 1\n"],
    ["a list as a key", "? [a]\n: 1\n"],
    ["an anchor on a key", "&k a: 1\n"],
    ["an anchor ending in a colon", "a: [ &x: 1 ]\n"],
    ["an anchor glued to its node", "a: &x{ b: 1 }\n"],
    ["an empty value after a spaced colon", "a : \n"],
    ["an empty list item", "a:\n  -\n  - c\n"],
    ["a quoted scalar over two lines", 'a: "multi\n  line"\n'],
    ["a plain scalar over two lines", "a: plain\n  continued\n"],
    ["a quoted scalar with text after it", "- ''1': true\n"],
    ["a key longer than 1024 characters", `a: 1\n${"k".repeat(1100)}: 2\n`],
    ["a long quoted key in a flow pair", `a: ["${"k".repeat(1100)}": 1]\n`],
    // Found by the property above (CI seed 1189434709): js-yaml reads on where `yaml` stops.
    ["a line starting with `...`", "... {}\n"],
    ["an unknown directive", "%YAM 1.2\n---\na: 1\n"],
    ["a key written after a flow mapping", "A:\n- { b: 1 }<<: \n- {}\n"],
    ["a comment line inside a flow mapping", "{a: b\n# d\n}\n"],
  ])("hands %s to the full reader", (_, text) => {
    expect(readPlainYaml(text, "c.yaml")).toBeUndefined();
  });

  it("reads every example config, so that a real config takes the fast path", () => {
    const examples = ["examples/quickstart", "examples/multi-file"];
    for (const dir of examples) {
      for (const name of readdirSync(dir).filter((n) => n.endsWith(".yaml"))) {
        const text = readFileSync(join(dir, name), "utf8");
        expect(agrees(text), `${dir}/${name}`).toBe(true);
      }
    }
  });
});
