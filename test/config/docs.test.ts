import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { configDocsPath, renderConfigDocs } from "../../scripts/gen-config-docs.js";
import { configSchema } from "../../src/config/schema-file.js";

type Node = Record<string, unknown>;

describe("the config schema and its reference", () => {
  it("docs/config.md is what scripts/gen-config-docs.ts makes of the schema", () => {
    const expected = renderConfigDocs(configSchema() as never);
    if (process.env.UPDATE_GOLDEN === "1") writeFileSync(configDocsPath(), expected);
    expect(
      readFileSync(configDocsPath(), "utf8"),
      "docs/config.md is out of date: run `npm run build && node dist/scripts/gen-config-docs.js`",
    ).toBe(expected);
  });

  it("describes every property, so editors can show help for each key", () => {
    const missing: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (typeof node !== "object" || node === null) return;
      const record = node as Node;
      for (const group of ["properties", "patternProperties"]) {
        for (const [key, property] of Object.entries((record[group] ?? {}) as Record<string, Node>)) {
          if (typeof property.description !== "string" || property.description === "")
            missing.push(`${path}/${key}`);
        }
      }
      for (const [key, child] of Object.entries(record)) walk(child, `${path}/${key}`);
    };
    walk(configSchema(), "#");
    expect(missing).toEqual([]);
  });
});
