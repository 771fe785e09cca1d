/**
 * The JSON Schema validators a run uses are code generated when doohctl is built
 * (scripts/gen-validators.ts, ajv's standalone code): each module must be what the schemas
 * make now, so that a schema changed without running the generator fails here, not in a user's
 * run. The behaviour of each validator is what the config, plan file, contract and seed tests
 * check through it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generatedValidators } from "../../scripts/gen-validators.js";
import { ROOT } from "../proof/binary.js";

const OUT_OF_DATE = "run `npm run build && node dist/scripts/gen-validators.js`";

describe("the generated validators", () => {
  const modules = generatedValidators();

  it("are one module per schema family, each beside the code that uses it", () => {
    expect(modules.map((m) => m.file).sort()).toEqual([
      "src/api/contract-answers.generated.ts",
      "src/config/config-schema.generated.ts",
      "src/emulator/seed-schema.generated.ts",
      "src/plan/saved/plan-schema.generated.ts",
    ]);
  });

  it.each(modules.map((m) => [m.file, m.text] as const))("%s is up to date with its schema", (file, text) => {
    expect(readFileSync(join(ROOT, file), "utf8") === text, `${file} is out of date: ${OUT_OF_DATE}`).toBe(
      true,
    );
  });

  it("import nothing of ajv at run time: its helpers are written in, the formats imported", () => {
    for (const { text } of modules) {
      const imports = [...text.matchAll(/^import (type )?.* from "([^"]+)";$/gm)];
      expect(imports.filter(([, type]) => !type).map(([, , from]) => from)).toEqual([
        expect.stringMatching(/\/model\/json-schema-formats\.js$/),
      ]);
      expect(text).toContain('import type { ValidateFunction } from "ajv/dist/2020.js";');
      // Every name ajv's code requires is in the module's own table, so a bundle needs nothing else.
      const table = /^const RUNTIME = \{(.*)\};$/m.exec(text)?.[1] ?? "";
      for (const [, name] of text.matchAll(/require\("([^"]+)"\)/g)) expect(table).toContain(`"${name}": `);
      expect(text).not.toContain("createRequire");
    }
  });
});
