/**
 * Writes the JSON Schema validators a run uses as code, with ajv's standalone code: compiled
 * when doohctl is built, so that no run compiles a schema at start (docs/performance.md,
 * Start-up). One module per schema family, beside the code that uses it:
 * - the config schema (src/config/schema-check.ts): the document, a dialect file, and one
 *   insertion order or creative alone, with doohctl's `http-url` format (below);
 * - the saved plan's schema (src/plan/saved/file.ts);
 * - the tolerant view of the DSP contract (src/api/tolerant.ts, G14): one validator per answer
 *   schema, as the client reads answers (src/api/contract.ts);
 * - the emulator's seed schema (src/emulator/seed.ts).
 * Each module imports SCHEMA_FORMATS (src/model/json-schema-formats.ts) and nothing of ajv at
 * run time: the small helpers ajv's code calls (`ucs2length`) are written into it as ajv's own
 * functions, so it needs no `require` (a bundler cannot follow one: scripts/bundle.ts) and no
 * CommonJS default import (Node, the bundler and vitest each give it differently).
 * Run after changing a schema, or what a view is derived from:
 * `npm run build && node dist/scripts/gen-validators.js` (gen-targeting-schemas.js runs it too).
 * test/model/generated-validators.test.ts fails when a module is out of date.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import standaloneModule from "ajv/dist/standalone/index.js";
import { answerSchemaNames, CONTRACT_FILE, type ContractDocument } from "../src/api/contract-document.js";
import { tolerantDocument } from "../src/api/tolerant.js";
import { configSchema } from "../src/config/schema-file.js";
import { SEED_SCHEMA } from "../src/emulator/seed-schema.js";
import { FORMATS_MODULE, jsonSchemaAjv, type SchemaFamilyOptions } from "../src/model/json-schema.js";

// ajv's standalone module is CommonJS: under NodeNext its default import is the module object.
const standaloneCode = standaloneModule as unknown as typeof standaloneModule.default;

type Schema = Record<string, unknown>;

const root = fileURLToPath(new URL(import.meta.url.includes("/dist/") ? "../../" : "../", import.meta.url));
const FORMATS_FILE = "src/model/json-schema-formats.ts";

interface Family {
  /** The generated module, from the repository's root. */
  file: string;
  /** What it is made from, for its header. */
  from: string;
  options: SchemaFamilyOptions;
  /** The schema documents, each under its `$id`. */
  documents: Schema[];
  /** Each exported validator: the document's `$id`, or a `$ref` into a document. */
  exports: Record<string, string>;
}

/**
 * The config schema as doohctl checks it. The file is portable (strict ajv, standard formats
 * only: ARCHITECTURE.md, Configuration), so its `URL` definition holds only a pattern;
 * doohctl's own check, stricter (no control character, readable by WHATWG `URL`, no user info:
 * src/model/url.ts; not ajv's strict `uri`, which refuses the macros real pixel URLs carry,
 * `{cachebuster}`), is the format `http-url`, added here to a copy of the definition. Its
 * errors are explained by the same `URL` title as the pattern's (src/config/explain.ts).
 */
function configWithHttpUrl(): Schema {
  const copy = structuredClone(configSchema()) as { $defs: Record<string, Schema> };
  const url = copy.$defs.http_url;
  if (url === undefined) throw new Error("schemas/doohctl.schema.json has no $defs/http_url");
  url.format = "http-url";
  return copy;
}

const CONTRACT_ID = "https://doohctl.dev/schemas/dsp-api.tolerant.json";

function families(): Family[] {
  const config = configWithHttpUrl();
  const configId = String(config.$id);
  const contract = JSON.parse(readFileSync(`${root}${CONTRACT_FILE}`, "utf8")) as ContractDocument;
  const plan = JSON.parse(readFileSync(`${root}schemas/plan.schema.json`, "utf8")) as Schema;
  // Published as draft-07 for editors; every keyword it uses means the same in 2020-12.
  const { $schema: _, ...seed } = SEED_SCHEMA;
  return [
    {
      file: "src/config/config-schema.generated.ts",
      from: "schemas/doohctl.schema.json, with the format http-url",
      options: { verbose: true, formats: ["date-time", "uri", "http-url"] },
      documents: [config],
      exports: {
        document: configId,
        dialect_file: `${configId}#/$defs/dialect_file`,
        insertion_order: `${configId}#/$defs/insertion_order`,
        creative: `${configId}#/$defs/creative`,
      },
    },
    {
      file: "src/plan/saved/plan-schema.generated.ts",
      from: "schemas/plan.schema.json",
      // strict off: the schema's if/then branches require properties their parent defines,
      // which ajv's strict mode (strictRequired) refuses though the schema is valid JSON Schema.
      options: { strict: false },
      documents: [plan],
      exports: { plan: String(plan.$id) },
    },
    {
      file: "src/api/contract-answers.generated.ts",
      from: `the tolerant view (src/api/tolerant.ts) of ${CONTRACT_FILE}`,
      // strict off: the document's OpenAPI keys (paths, x-gap, ...) sit beside the schemas.
      options: { strict: false },
      documents: [{ ...tolerantDocument(contract), $id: CONTRACT_ID }],
      exports: Object.fromEntries(
        answerSchemaNames(contract).map((name) => [name, `${CONTRACT_ID}#/components/schemas/${name}`]),
      ),
    },
    {
      file: "src/emulator/seed-schema.generated.ts",
      from: "SEED_SCHEMA (src/emulator/seed-schema.ts)",
      options: {},
      documents: [{ ...seed, $id: "https://doohctl.dev/schemas/emulator-seed.schema.json" }],
      exports: { seed: "https://doohctl.dev/schemas/emulator-seed.schema.json" },
    },
  ];
}

/** The source of ajv's run-time helper `name` (`require(name).default`), which must need nothing else. */
function helperSource(name: string): string {
  const helper = (createRequire(import.meta.url)(name) as { default?: unknown }).default;
  const source = typeof helper === "function" ? helper.toString() : "";
  if (!source.startsWith("function ") || source.includes("require(")) {
    throw new Error(
      `ajv's run-time helper ${name} is not one self-contained function: bundle it another way`,
    );
  }
  return source;
}

/** The module of one family: its imports, the run-time names ajv's code reaches, the code. */
function moduleText(family: Family): string {
  const ajv = jsonSchemaAjv({ ...family.options, standalone: true });
  for (const document of family.documents) ajv.addSchema(document);
  const refs: Record<string, string> = {};
  for (const [name, target] of Object.entries(family.exports)) {
    if (!target.includes("#")) {
      refs[name] = target;
      continue;
    }
    // What a run compiled before: `{ $ref }` to the definition, under an id of its own.
    const id = `https://doohctl.dev/validators/${name}`;
    ajv.addSchema({ $id: id, $ref: target });
    refs[name] = id;
  }
  const exported: string[] = [];
  // Machine code on as few lines as ajv writes it (no `lines`): read the schema, not this.
  const code = standaloneCode(ajv, refs)
    .replace(/^"use strict";/, "")
    .replace(/export const (\w+) = (\w+);/g, (_, name: string, fn: string) => {
      exported.push(`export const ${name}: ValidateFunction = ${fn};`);
      return "";
    })
    .trim();
  const formats = relative(dirname(family.file), FORMATS_FILE).replace(/\.ts$/, ".js");
  // Each `require(NAME)` of ajv's code: the formats by their name, a helper as ajv's function.
  const helpers = [...new Set([...code.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1] ?? ""))]
    .filter((name) => name !== FORMATS_MODULE)
    .sort()
    .map((name, i) => ({ name, id: `helper${i}`, source: helperSource(name) }));
  const table = [
    `${JSON.stringify(FORMATS_MODULE)}: SCHEMA_FORMATS`,
    ...helpers.map(({ name, id }) => `${JSON.stringify(name)}: { default: ${id} }`),
  ];
  return [
    "// @ts-nocheck",
    `// Generated by scripts/gen-validators.ts from ${family.from}: do not edit.`,
    "// `npm run build && node dist/scripts/gen-validators.js` writes it again;",
    "// test/model/generated-validators.test.ts fails when it is out of date.",
    'import type { ValidateFunction } from "ajv/dist/2020.js";',
    `import { SCHEMA_FORMATS } from "${formats.startsWith(".") ? formats : `./${formats}`}";`,
    "",
    "// ajv's code reaches its run-time helpers with `require`, and the formats, by a name.",
    ...helpers.map(({ id, source }) => `const ${id} = ${source};`),
    `const RUNTIME = { ${table.join(", ")} };`,
    "const require = (name: string) => RUNTIME[name];",
    "",
    code,
    "",
    ...exported,
    "",
  ].join("\n");
}

/** Every generated module: its file (from the repository's root) and its text. */
export function generatedValidators(): { file: string; text: string }[] {
  return families().map((family) => ({ file: family.file, text: moduleText(family) }));
}

/** Writes every generated module; the files written. */
export function writeGeneratedValidators(): string[] {
  return generatedValidators().map(({ file, text }) => {
    writeFileSync(`${root}${file}`, text);
    return file;
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`wrote ${writeGeneratedValidators().join(", ")}\n`);
}
