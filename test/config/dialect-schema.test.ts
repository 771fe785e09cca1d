/**
 * The config schema's `$defs/dialect` is made from `DIALECT_KEYS` (src/model/dialect.ts) by
 * scripts/gen-targeting-schemas.ts: it names exactly the table's keys, each with its gap
 * decision, what it adapts and its default, and judges nothing `parseDialect` judges.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { configDialectSchema, DIALECT_SCHEMA_PART } from "../../scripts/gen-targeting-schemas.js";
import { DEFAULT_DIALECT, DIALECT_KEYS, dialectValue } from "../../src/model/dialect.js";

type Json = Record<string, unknown>;
const OUT_OF_DATE = "run `npm run build && node dist/scripts/gen-targeting-schemas.js`";

/** Every leaf key of a dialect schema, as the config writes it (`progress.member`), with its node. */
function leaves(schema: Json, prefix = ""): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const [key, node] of Object.entries(schema.properties as Record<string, Json>)) {
    if (node.properties) for (const [sub, leaf] of leaves(node, `${prefix}${key}.`)) out.set(sub, leaf);
    else out.set(`${prefix}${key}`, node);
  }
  return out;
}

describe("the config schema's dialect", () => {
  it(`${DIALECT_SCHEMA_PART.file}, ${DIALECT_SCHEMA_PART.path.join("/")} is up to date`, () => {
    const file = JSON.parse(readFileSync(DIALECT_SCHEMA_PART.file, "utf8")) as Json;
    const part = DIALECT_SCHEMA_PART.path.reduce<Json>((node, key) => node[key] as Json, file);
    expect(part, `${DIALECT_SCHEMA_PART.file} is out of date: ${OUT_OF_DATE}`).toEqual(configDialectSchema());
  });

  it("names exactly the table's keys, each with its gap, what it adapts and its default", () => {
    const schema = leaves(configDialectSchema());
    expect([...schema.keys()]).toEqual(DIALECT_KEYS.map((k) => k.key));
    for (const key of DIALECT_KEYS) {
      const fallback = dialectValue(DEFAULT_DIALECT, key.key);
      const description = schema.get(key.key)!.description as string;
      expect(description).toContain(`${key.gap}: ${key.adapts}`);
      expect(description).toContain(fallback === null ? "none (null)" : `\`${fallback}\``);
    }
  });

  it("types each value and leaves its form to parseDialect: no pattern, no second copy of the rules", () => {
    expect(JSON.stringify(configDialectSchema())).not.toMatch(/"pattern"|"format"|"enum"/);
  });
});
