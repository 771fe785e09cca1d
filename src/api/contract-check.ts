/**
 * A fragment of the DSP contract checked strictly, as written (contract-document.ts): a
 * member's schema from the model's tables, for doctor and the tests. The client reads answers
 * through validators compiled when doohctl is built (contract.ts); these compile with ajv at
 * run time, once per fragment, so ajv's compiler is loaded only by what imports this module.
 */
import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js";
import { jsonSchemaAjv } from "../model/json-schema.js";
import { type ContractIssue, issuesOf } from "./contract.js";
import { contractDocument } from "./contract-document.js";

const DOC_ID = "dsp-api";
let ajv: Ajv2020 | undefined;
const fragments = new Map<string, ValidateFunction>();

/**
 * Checks `value` against a fragment of the contract written as the document writes its own
 * (its `$ref`s name `#/components/schemas/...`), such as a member's schema from the model's
 * tables (src/model/resource-schemas.ts).
 */
export function checkFragment(fragment: object, value: unknown): ContractIssue[] {
  const text = JSON.stringify(fragment);
  let validate = fragments.get(text);
  if (!validate) {
    if (ajv === undefined) {
      // strict: false lets the document's OpenAPI keys (paths, x-gap, ...) sit beside the schemas.
      ajv = jsonSchemaAjv({ strict: false });
      ajv.addSchema(contractDocument() as object, DOC_ID);
    }
    validate = ajv.compile(JSON.parse(text.replaceAll('"#/components/', `"${DOC_ID}#/components/`)));
    fragments.set(text, validate);
  }
  return validate(value) ? [] : issuesOf(validate.errors);
}
