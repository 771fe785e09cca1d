/**
 * The saved-plan document (`plan -o FILE`): JSON with a stable key order, checked against
 * schemas/plan.schema.json on load, its `format_version` first so an old or new file gets
 * a message that says what to do rather than a list of schema errors.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { canonicalDocument } from "./canonical.js";
import { PLAN_FORMAT_VERSION, type Plan } from "./types.js";

export class PlanFileError extends Error {
  override readonly name = "PlanFileError";
  constructor(
    readonly code:
      | "PLAN_FILE_NOT_FOUND"
      | "PLAN_FILE_UNREADABLE"
      | "PLAN_FILE_NOT_REGULAR"
      | "PLAN_FILE_TOO_LARGE"
      | "PLAN_FILE_NOT_JSON"
      | "PLAN_FORMAT_VERSION"
      | "PLAN_FILE_INVALID",
    message: string,
  ) {
    super(message);
  }
}

/** The Plan's own field order at the top, sorted keys below: the same plan, the same bytes. */
const TOP_LEVEL: (keyof Plan)[] = [
  "format_version",
  "tool_version",
  "created_at",
  "account",
  "connection",
  "config_files",
  "targets",
  "max_pause_ms",
  "allowed",
  "thresholds",
  "scope",
  "summary",
  "findings",
  "changes",
  "requests",
  "fingerprints",
];

export function serializePlan(plan: Plan): string {
  return `${canonicalDocument(
    TOP_LEVEL.filter((key) => plan[key] !== undefined).map((key) => [key, plan[key]] as const),
    "  ",
  )}\n`;
}

function schemaPath(): string {
  // src/plan -> ../../schemas; dist/src/plan -> ../../../schemas
  for (const relative of ["../../schemas/plan.schema.json", "../../../schemas/plan.schema.json"]) {
    const path = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error("schemas/plan.schema.json not found: the installation is incomplete");
}

let validator: ReturnType<Ajv2020["compile"]> | undefined;
function validate(value: unknown): string[] {
  if (!validator) {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    validator = ajv.compile(JSON.parse(readFileSync(schemaPath(), "utf8")));
  }
  if (validator(value)) return [];
  return (validator.errors ?? [])
    .slice(0, 10)
    .map((e) => `${e.instancePath || "/"} ${e.message ?? "is invalid"}`);
}

/** Parses and checks a saved plan; `file` names it in messages. */
export function parsePlan(text: string, file: string): Plan {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Where, never what: the parser's message quotes the file's text, which may be anything.
    const at = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new PlanFileError(
      "PLAN_FILE_NOT_JSON",
      `${file} is not a plan file (not JSON${at === undefined ? "" : ` at byte ${at}`}): write one with doohctl plan -o ${file}`,
    );
  }
  const version = (value as { format_version?: unknown } | null)?.format_version;
  if (version !== PLAN_FORMAT_VERSION) {
    throw new PlanFileError(
      "PLAN_FORMAT_VERSION",
      version === undefined
        ? `${file} has no format_version: it is not a doohctl plan file`
        : `${file} has plan format ${JSON.stringify(version)}; this doohctl reads format ${PLAN_FORMAT_VERSION}: make the plan again with this version (doohctl plan -o ${file})`,
    );
  }
  const problems = validate(value);
  if (problems.length > 0) {
    throw new PlanFileError("PLAN_FILE_INVALID", `${file} is not a valid plan: ${problems.join("; ")}`);
  }
  return value as Plan;
}
