/**
 * The saved-plan document (`plan -o FILE`): stable key order, checked against
 * schemas/plan.schema.json on load, its `format_version` first so a message says what to do.
 */
import { jsonTooDeepAt, MAX_NESTING_DEPTH } from "../../model/json-depth.js";
import { PLAN_FORMAT_VERSION, type Plan } from "../types.js";
import { canonicalDocument } from "./canonical.js";
import { plan as validatePlanFile } from "./plan-schema.generated.js";

export class PlanFileError extends Error {
  override readonly name = "PlanFileError";
  constructor(
    readonly code:
      | "PLAN_FILE_NOT_FOUND"
      | "PLAN_FILE_UNREADABLE"
      | "PLAN_FILE_NOT_REGULAR"
      | "PLAN_FILE_TOO_LARGE"
      | "PLAN_FILE_NOT_JSON"
      | "PLAN_FILE_TOO_DEEP"
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

/**
 * Array items per piece of `planFileChunks`: a small string (a request is ~10 kB) dies young; one
 * of a MB goes to V8's large-object space, freed only by a full collection.
 */
const CHUNK_ITEMS = 16;

/**
 * `serializePlan(plan)` in pieces, the same bytes once joined, so a plan of 100,000 campaigns
 * (near V8's longest string) is never one string (docs/performance.md#scale): a field a piece,
 * an array `CHUNK_ITEMS` at a time, each indented as the whole document would indent it.
 */
export function* planFileChunks(plan: Plan): Generator<string> {
  const keys = TOP_LEVEL.filter((key) => plan[key] !== undefined);
  for (const [i, key] of keys.entries()) {
    const value = plan[key];
    const name = JSON.stringify(key);
    yield i === 0 ? "{\n" : ",\n";
    if (!Array.isArray(value) || value.length <= CHUNK_ITEMS) {
      yield inner(canonicalDocument([[key, value]], "  "), "{\n", "\n}");
      continue;
    }
    yield `  ${name}: [\n`;
    for (let start = 0; start < value.length; start += CHUNK_ITEMS) {
      const slice = canonicalDocument([[key, value.slice(start, start + CHUNK_ITEMS)]], "  ");
      yield (start === 0 ? "" : ",\n") + inner(slice, `{\n  ${name}: [\n`, "\n  ]\n}");
    }
    yield "\n  ]";
  }
  yield "\n}\n";
}

/** `text` without `head` and `tail`, which it must start and end with. */
function inner(text: string, head: string, tail: string): string {
  if (!text.startsWith(head) || !text.endsWith(tail)) {
    throw new Error(`plan file: a field's text is not shaped as expected (${text.slice(0, 40)}...)`);
  }
  return text.slice(head.length, text.length - tail.length);
}

/** Compiled when doohctl is built (scripts/gen-validators.ts) from schemas/plan.schema.json. */
function validate(value: unknown): string[] {
  if (validatePlanFile(value)) return [];
  return (validatePlanFile.errors ?? [])
    .slice(0, 10)
    .map((e) => `${e.instancePath || "/"} ${e.message ?? "is invalid"}`);
}

/** Values from the config and the DSP, each MAX_NESTING_DEPTH deep at most, sit a few levels down. */
const PLAN_MAX_DEPTH = 2 * MAX_NESTING_DEPTH;

/** Parses and checks a saved plan; `file` names it in messages. */
export function parsePlan(text: string, file: string): Plan {
  // Before parsing: the schema check, the fingerprint and the comparison recurse into it.
  const deepAt = jsonTooDeepAt(text, PLAN_MAX_DEPTH);
  if (deepAt !== undefined) {
    throw new PlanFileError(
      "PLAN_FILE_TOO_DEEP",
      `${file} nests objects or arrays more than ${PLAN_MAX_DEPTH} levels deep (at character ${deepAt}), deeper than any plan doohctl writes: make the plan again with doohctl plan -o ${file}`,
    );
  }
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
