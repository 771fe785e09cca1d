/**
 * How the client reads the contract: the operation of a request, and a 2xx answer through the
 * tolerant view of its schema (tolerant.ts, G14) with validators compiled at build time
 * (scripts/gen-validators.ts): a run compiles no schema.
 */
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { TimeError } from "../model/time.js";
import * as answers from "./contract-answers.generated.js";
import { answerSchemaName, contractDocument, type Parameter, schemaName } from "./contract-document.js";
import { keptAnswer } from "./tolerant.js";
import type { HttpMethod } from "./types.js";

/** One thing that does not match: where and what. */
export interface ContractIssue {
  /** JSON pointer into the body (`/campaigns/0/cpm`), or `?name` for a query parameter. */
  at: string;
  expected: string;
  /** What adapts a DSP that answers this member otherwise (a dialect key), when one does. */
  hint?: string;
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

let routes: Array<{ regex: RegExp; template: string }> | undefined;

function routesOf(): Array<{ regex: RegExp; template: string }> {
  routes ??= Object.keys(contractDocument().paths).map((template) => ({
    template,
    regex: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
  }));
  return routes;
}

/** The operation `method path` names in the contract, or undefined when it names none. */
export function findOperation(method: HttpMethod, path: string): ContractOperation | undefined {
  const doc = contractDocument();
  for (const { regex, template } of routesOf()) {
    if (!regex.test(path)) continue;
    const op = doc.paths[template]?.[method.toLowerCase() as Lowercase<HttpMethod>];
    if (!op) return undefined;
    return {
      operationId: op.operationId,
      template,
      parameters: (op.parameters ?? []).map((p) =>
        "$ref" in p ? doc.components.parameters[p.$ref.split("/").pop() ?? ""]! : p,
      ),
      requestSchema: schemaName(op.requestBody?.content["application/json"].schema.$ref),
      responseSchema: answerSchemaName(op),
    };
  }
  return undefined;
}

/** ajv's errors as pointers and expectations, never quoting the value (it may be anything). */
export function issuesOf(errors: readonly ErrorObject[] | null | undefined): ContractIssue[] {
  const out: ContractIssue[] = [];
  for (const e of errors ?? []) {
    const at = e.instancePath;
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

/** A 2xx answer checked against the tolerant view of its schema (G14), and what the client keeps of it. */
export function readAnswer(
  op: ContractOperation,
  body: unknown,
  options: { collectUnknown?: boolean } = {},
): { issues: ContractIssue[]; kept: unknown; unknown: string[] } {
  const name = op.responseSchema;
  if (name === undefined) return { issues: [], kept: body, unknown: [] };
  const validate = (answers as Record<string, ValidateFunction | undefined>)[name];
  if (validate === undefined)
    throw new Error(`no generated validator for ${name}: run node dist/scripts/gen-validators.js`);
  if (!validate(body)) return { issues: issuesOf(validate.errors), kept: undefined, unknown: [] };
  try {
    return { issues: [], ...keptAnswer(contractDocument().components.schemas ?? {}, name, body, options) };
  } catch (error) {
    if (!(error instanceof TimeError)) throw error;
    const issue = { at: "/", expected: `times doohctl can keep exactly: ${error.message}` };
    return { issues: [issue], kept: undefined, unknown: [] };
  }
}
