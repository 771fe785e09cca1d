/**
 * The DSP contract as data: `schemas/dsp-api.openapi.json` (OpenAPI 3.1, the specification
 * plus G1 to G14) says what may be sent and what may come back. This module finds the
 * operation of a request and checks a request or an answer against it with ajv. The document
 * is read and each schema compiled once, on first use.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Ajv2020, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { jsonSchemaAjv } from "../model/json-schema.js";
import { TimeError } from "../model/time.js";
import { keptAnswer, tolerantDocument } from "./tolerant.js";
import type { ApiRequest, HttpMethod } from "./types.js";

export const CONTRACT_FILE = "schemas/dsp-api.openapi.json";

/** One thing that does not match: where (a JSON pointer, or a query parameter) and what. */
export interface ContractIssue {
  /** JSON pointer into the body (`/campaigns/0/cpm`), or `?name` for a query parameter. */
  at: string;
  expected: string;
  /** What adapts a DSP that answers this member otherwise (a dialect key), when one does. */
  hint?: string;
}

interface Parameter {
  name: string;
  in: "query" | "path" | "cookie" | "header";
  required?: boolean;
  schema: Record<string, unknown>;
}

interface Operation {
  operationId: string;
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { content: { "application/json": { schema: { $ref: string } } } };
  responses: Record<string, { content?: { "application/json": { schema: { $ref: string } } } }>;
}

interface Document {
  paths: Record<string, Partial<Record<Lowercase<HttpMethod>, Operation>>>;
  components: { parameters: Record<string, Parameter>; schemas?: Record<string, Record<string, unknown>> };
}

/** A matched operation: its template path and what it declares. */
export interface ContractOperation {
  operationId: string;
  template: string;
  parameters: Parameter[];
  requestSchema: string | undefined;
  /** Schema name of the 2xx answer; undefined for a 204 without body. */
  responseSchema: string | undefined;
}

function contractPath(): string {
  // src/api -> ../../schemas; dist/src/api -> ../../../schemas
  for (const relative of [`../../${CONTRACT_FILE}`, `../../../${CONTRACT_FILE}`]) {
    const path = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error(`${CONTRACT_FILE} not found: the installation is incomplete`);
}

const DOC_ID = "dsp-api";

interface Loaded {
  doc: Document;
  ajv: Ajv2020;
  /** The tolerant view (tolerant.ts, G14), for the client's reading of answers. */
  tolerant: Ajv2020;
  routes: Array<{ regex: RegExp; template: string }>;
}

let loaded: Loaded | undefined;
const compiled = new Map<string, ValidateFunction>();
const compiledTolerant = new Map<string, ValidateFunction>();

function ajvOf(doc: Document): Ajv2020 {
  // strict: false lets the document's OpenAPI keys (paths, x-gap, ...) sit beside the schemas.
  const ajv = jsonSchemaAjv({ strict: false });
  ajv.addSchema(doc as object, DOC_ID);
  return ajv;
}

function contract(): Loaded {
  if (!loaded) {
    const doc = JSON.parse(readFileSync(contractPath(), "utf8")) as Document;
    const routes = Object.keys(doc.paths).map((template) => ({
      template,
      regex: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
    }));
    loaded = { doc, ajv: ajvOf(doc), tolerant: ajvOf(tolerantDocument(doc)), routes };
  }
  return loaded;
}

/** The named schema of `components/schemas`, compiled once. */
export function schemaValidator(name: string): ValidateFunction {
  let validate = compiled.get(name);
  if (!validate) {
    validate = contract().ajv.compile({ $ref: `${DOC_ID}#/components/schemas/${name}` });
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
    validate = contract().ajv.compile(
      JSON.parse(text.replaceAll('"#/components/', `"${DOC_ID}#/components/`)),
    );
    fragments.set(text, validate);
  }
  return validate(value) ? [] : issuesOf(validate.errors);
}

const schemaName = (ref: string | undefined) => ref?.replace("#/components/schemas/", "");

/** The operation `method path` names in the contract, or undefined when it names none. */
export function findOperation(method: HttpMethod, path: string): ContractOperation | undefined {
  const { doc, routes } = contract();
  for (const { regex, template } of routes) {
    if (!regex.test(path)) continue;
    const op = doc.paths[template]?.[method.toLowerCase() as Lowercase<HttpMethod>];
    if (!op) return undefined;
    const ok = Object.entries(op.responses).find(([status]) => status.startsWith("2"));
    return {
      operationId: op.operationId,
      template,
      parameters: (op.parameters ?? []).map((p) =>
        "$ref" in p ? doc.components.parameters[p.$ref.split("/").pop() ?? ""]! : p,
      ),
      requestSchema: schemaName(op.requestBody?.content["application/json"].schema.$ref),
      responseSchema: schemaName(ok?.[1].content?.["application/json"].schema.$ref),
    };
  }
  return undefined;
}

/** ajv's errors as pointers and expectations, never quoting the value (it may be anything). */
export function issuesOf(errors: readonly ErrorObject[] | null | undefined, prefix = ""): ContractIssue[] {
  const out: ContractIssue[] = [];
  for (const e of errors ?? []) {
    const at = `${prefix}${e.instancePath}`;
    const params = e.params as Record<string, unknown>;
    let issue: ContractIssue;
    if (e.keyword === "required") {
      issue = { at: `${at}/${String(params.missingProperty)}`, expected: "a required member, missing" };
    } else if (e.keyword === "additionalProperties") {
      issue = {
        at: `${at}/${String(params.additionalProperty)}`,
        expected: "no such member (the contract does not name it)",
      };
    } else if (e.keyword === "oneOf" || e.keyword === "anyOf" || e.keyword === "if") {
      continue; // Its branches' errors say more.
    } else {
      issue = { at: at || "/", expected: e.message ?? "a different value" };
    }
    if (!out.some((o) => o.at === issue.at && o.expected === issue.expected)) out.push(issue);
  }
  return out;
}

/** Checks a 2xx answer body against the operation's response schema, as written. */
export function checkAnswer(op: ContractOperation, body: unknown): ContractIssue[] {
  if (op.responseSchema === undefined) return [];
  const validate = schemaValidator(op.responseSchema);
  return validate(body) ? [] : issuesOf(validate.errors);
}

/**
 * How the client reads a 2xx answer (G14): checked against the tolerant view of the
 * operation's response schema; when it passes, what the client keeps of it (tolerant.ts).
 */
export function readAnswer(
  op: ContractOperation,
  body: unknown,
  options: { collectUnknown?: boolean } = {},
): { issues: ContractIssue[]; kept: unknown; unknown: string[] } {
  const name = op.responseSchema;
  if (name === undefined) return { issues: [], kept: body, unknown: [] };
  const { tolerant, doc } = contract();
  let validate = compiledTolerant.get(name);
  if (!validate) {
    validate = tolerant.compile({ $ref: `${DOC_ID}#/components/schemas/${name}` });
    compiledTolerant.set(name, validate);
  }
  if (!validate(body)) return { issues: issuesOf(validate.errors), kept: undefined, unknown: [] };
  try {
    return { issues: [], ...keptAnswer(doc.components.schemas ?? {}, name, body, options) };
  } catch (error) {
    if (!(error instanceof TimeError)) throw error;
    const issue = { at: "/", expected: `times doohctl can keep exactly: ${error.message}` };
    return { issues: [issue], kept: undefined, unknown: [] };
  }
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
  const { ajv } = contract();
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
    const validate = ajv.compile(param.schema);
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
