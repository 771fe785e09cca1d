/**
 * The contract checked strictly, as written, where only the tests need it: a named schema, a
 * 2xx answer against its operation's, and what a request would send. Each compiles through
 * `checkFragment` (src/api/contract-check.ts), the one run-time compiler doctor uses too.
 */
import { type ContractIssue, type ContractOperation, findOperation } from "../../src/api/contract.js";
import { checkFragment } from "../../src/api/contract-check.js";
import type { ApiRequest } from "../../src/api/types.js";

/** `value` against the named schema of `components/schemas`. */
export const checkSchema = (name: string, value: unknown): ContractIssue[] =>
  checkFragment({ $ref: `#/components/schemas/${name}` }, value);

/** A 2xx answer body against the operation's response schema, as written. */
export function checkAnswer(op: ContractOperation, body: unknown): ContractIssue[] {
  return op.responseSchema === undefined ? [] : checkSchema(op.responseSchema, body);
}

function queryValue(value: string, schema: Record<string, unknown>): unknown {
  if (schema.type === "integer" && /^-?[0-9]+$/.test(value)) return Number(value);
  if (schema.type === "boolean" && (value === "true" || value === "false")) return value === "true";
  return value;
}

/** What a request would send: its operation, query parameters and body. */
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
    for (const issue of checkFragment(param.schema, value))
      issues.push({ ...issue, at: `?${name}${issue.at === "/" ? "" : issue.at}` });
  }
  if (op.requestSchema === undefined) {
    if (request.body !== undefined) issues.push({ at: "/", expected: "no body" });
  } else issues.push(...checkSchema(op.requestSchema, request.body));
  return issues;
}
