/**
 * The one Ajv set-up: draft 2020-12, every error reported, the formats of json-schema-formats.ts.
 * A run's validators are compiled with it at build time (scripts/gen-validators.ts); a run
 * compiles only doctor's and the tests' contract checks (src/api/contract-check.ts).
 */
import { _, Ajv2020 } from "ajv/dist/2020.js";
import { SCHEMA_FORMATS, type SchemaFormatName } from "./json-schema-formats.js";

export interface SchemaFamilyOptions {
  /**
   * Ajv's strict mode: off only where a schema is valid JSON Schema that strict mode refuses
   * (the contract's OpenAPI keys beside its schemas, the plan schema's if/then `required`).
   * @default true
   */
  strict?: boolean;
  /** Errors carry the schema and data they concern (config messages quote them). @default false */
  verbose?: boolean;
  /** The formats the family's schemas use. @default ["date-time", "uri"] */
  formats?: readonly SchemaFormatName[];
  /**
   * Keep each compiled function's source, for ajv's standalone code (scripts/gen-validators.ts):
   * the code then reaches the formats as `require("doohctl:formats")`, which the generated
   * module maps to SCHEMA_FORMATS. @default false
   */
  standalone?: boolean;
}

/** The name the generated code reaches SCHEMA_FORMATS by (scripts/gen-validators.ts maps it). */
export const FORMATS_MODULE = "doohctl:formats";

export function jsonSchemaAjv({
  strict = true,
  verbose = false,
  formats = ["date-time", "uri"],
  standalone = false,
}: SchemaFamilyOptions = {}): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict,
    verbose,
    ...(standalone ? { code: { source: true, esm: true, formats: _`require(${FORMATS_MODULE})` } } : {}),
  });
  for (const name of formats) ajv.addFormat(name, SCHEMA_FORMATS[name]);
  return ajv;
}
