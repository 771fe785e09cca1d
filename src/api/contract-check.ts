/**
 * The DSP contract checked strictly, as written (contract-document.ts): what a request would
 * send, an answer against its schema, and a fragment of the contract (a member's schema from
 * the model's tables, for doctor). The client reads answers through the tolerant view's
 * validators, compiled when doohctl is built (contract.ts); these checks compile with ajv at
 * run time, once per schema, for doctor and the tests, so ajv's compiler is loaded only by
 * what imports this module.
 */
import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js";
import { jsonSchemaAjv } from "../model/json-schema.js";
import { type ContractIssue, type ContractOperation, findOperation, issuesOf } from "./contract.js";
import { contractDocument } from "./contract-document.js";
import type { ApiRequest } from "./types.js";

const DOC_ID = "dsp-api";

let ajv: Ajv2020 | undefined;

function contractAjv(): Ajv2020 {
  if (ajv === undefined) {
    // strict: false lets the document's OpenAPI keys (paths, x-gap, ...) sit beside the schemas.
    ajv = jsonSchemaAjv({ strict: false });
    ajv.addSchema(contractDocument() as object, DOC_ID);
  }
  return ajv;
}

const compiled = new Map<string, ValidateFunction>();

/** The named schema of `components/schemas`, compiled once. */
export function schemaValidator(name: string): ValidateFunction {
  let validate = compiled.get(name);
  if (!validate) {
    validate = contractAjv().compile({ $ref: `${DOC_ID}#/components/schemas/${name}` });
    compiled.set(name, validate);
  }
  return validate;
}

const fragments = new Map<string, ValidateFunction>();

/**
 * Checks `value` against a fragment of the contract written as the document writes its own
 * (its `$ref`s name `#/components/schemas/...`): a member's schema from the model's tables
 * (src/model/resource-schemas.ts), for doctor. Compiled once per fragment.
 */
export function checkFragment(fragment: object, value: unknown): ContractIssue[] {
  const text = JSON.stringify(fragment);
  let validate = fragments.get(text);
  if (!validate) {
    validate = contractAjv().compile(
      JSON.parse(text.replaceAll('"#/components/', `"${DOC_ID}#/components/`)),
    );
    fragments.set(text, validate);
  }
  return validate(value) ? [] : issuesOf(validate.errors);
}

/** Checks a 2xx answer body against the operation's response schema, as written. */
export function checkAnswer(op: ContractOperation, body: unknown): ContractIssue[] {
  if (op.responseSchema === undefined) return [];
  const validate = schemaValidator(op.responseSchema);
  return validate(body) ? [] : issuesOf(validate.errors);
}

function queryValue(value: string, schema: Record<string, unknown>): unknown {
  if (schema.type === "integer" && /^-?[0-9]+$/.test(value)) return Number(value);
  if (schema.type === "boolean" && (value === "true" || value === "false")) return value === "true";
  return value;
}

/** Checks what a request would send: its operation, query parameters and body. */
export function checkRequest(request: ApiRequest): ContractIssue[] {
  const op = findOperation(request.method, request.path);
  if (!op) return [{ at: `${request.method} ${request.path}`, expected: "an operation the contract names" }];
  const issues: ContractIssue[] = [];
  const byName = new Map<string, string[]>();
  for (const [name, value] of request.query ?? []) byName.set(name, [...(byName.get(name) ?? []), value]);
  for (const [name, values] of byName) {
    const param = op.parameters.find((p) => p.in === "query" && p.name === name);
    if (!param) {
      issues.push({ at: `?${name}`, expected: `a parameter ${op.operationId} names` });
      continue;
    }
    const isArray = param.schema.type === "array";
    if (!isArray && values.length > 1) issues.push({ at: `?${name}`, expected: "one value" });
    const value = isArray ? values : queryValue(values[0] ?? "", param.schema);
    const validate = contractAjv().compile(param.schema);
    if (!validate(value)) issues.push(...issuesOf(validate.errors, `?${name}`));
  }
  if (op.requestSchema === undefined) {
    if (request.body !== undefined) issues.push({ at: "/", expected: "no body" });
  } else {
    const validate = schemaValidator(op.requestSchema);
    if (!validate(request.body)) issues.push(...issuesOf(validate.errors));
  }
  return issues;
}
