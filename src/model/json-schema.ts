/**
 * The one Ajv set-up: JSON Schema draft 2020-12, every error reported (a person fixes a file
 * in one pass), the standard `date-time` and `uri` formats. Each schema family (the config
 * schema, the plan file's, the API contract, the emulator seed's) makes its instance with
 * this, once, and compiles its schemas from it.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export interface SchemaFamilyOptions {
  /**
   * Ajv's strict mode: off only where a schema is valid JSON Schema that strict mode refuses
   * (the contract's OpenAPI keys beside its schemas, the plan schema's if/then `required`).
   * @default true
   */
  strict?: boolean;
  /** Errors carry the schema and data they concern (config messages quote them). @default false */
  verbose?: boolean;
}

export function jsonSchemaAjv({ strict = true, verbose = false }: SchemaFamilyOptions = {}): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict, verbose });
  addFormats(ajv, ["date-time", "uri"]);
  return ajv;
}
