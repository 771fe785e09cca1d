/**
 * The DSP contract as data, `schemas/dsp-api.openapi.json` (OpenAPI 3.1: the spec plus G1 to
 * G16), read once per process: the client reads through it (contract.ts), doctor and the tests
 * check against it strictly (contract-check.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const CONTRACT_FILE = "schemas/dsp-api.openapi.json";

export interface Parameter {
  name: string;
  in: "query" | "path" | "cookie" | "header";
  required?: boolean;
  schema: Record<string, unknown>;
}

export interface Operation {
  operationId: string;
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { content: { "application/json": { schema: { $ref: string } } } };
  responses: Record<string, { content?: { "application/json": { schema: { $ref: string } } } }>;
}

export interface ContractDocument {
  paths: Record<string, Partial<Record<"get" | "post" | "put" | "patch" | "delete", Operation>>>;
  components: { parameters: Record<string, Parameter>; schemas?: Record<string, Record<string, unknown>> };
}

function contractPath(): string {
  // src/api -> ../../schemas; the bundle, dist/src/bin -> ../../../schemas
  for (const relative of [`../../${CONTRACT_FILE}`, `../../../${CONTRACT_FILE}`]) {
    const path = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error(`${CONTRACT_FILE} not found: the installation is incomplete`);
}

let read: ContractDocument | undefined;

export function contractDocument(): ContractDocument {
  read ??= JSON.parse(readFileSync(contractPath(), "utf8")) as ContractDocument;
  return read;
}

/** A `#/components/schemas/NAME` reference's NAME. */
export const schemaName = (ref: string | undefined) => ref?.replace("#/components/schemas/", "");

/** The schema of an operation's 2xx answer; undefined for a 204 without body. */
export function answerSchemaName(op: Operation): string | undefined {
  const ok = Object.entries(op.responses).find(([status]) => status.startsWith("2"));
  return schemaName(ok?.[1].content?.["application/json"].schema.$ref);
}

/** The answer schema of every operation, each once, in the document's order. */
export function answerSchemaNames(doc: ContractDocument): string[] {
  const names = Object.values(doc.paths).flatMap((ops) =>
    Object.values(ops).flatMap((op) => answerSchemaName(op) ?? []),
  );
  return [...new Set(names)];
}
