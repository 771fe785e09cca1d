/**
 * Stage 2: the JSON Schema (ajv, all errors), each error a message a person can act on at its
 * YAML position; leaf formats explained by the parsers that normalize them (explain.ts).
 */
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { creative, dialect_file, document, insertion_order } from "./config-schema.generated.js";
import { explainLeaf } from "./explain.js";
import type { ConfigIssue, ConfigIssueCode } from "./issues.js";
import { escapePointer, type Located, locate } from "./json-pointer.js";
import { pathText } from "./path-text.js";
import { schemaMessage } from "./schema-messages.js";
import type { SourceIndex } from "./source-index.js";

interface Validators {
  document: ValidateFunction;
  /** A dialect file: `dialect:` and `x-` keys (src/config/dialect.ts). */
  dialectFile: ValidateFunction;
  /** One item of each top-level list, checked alone (see `validateDocument`). */
  items: Record<(typeof LISTS)[number], ValidateFunction>;
}

const LISTS = ["insertion_orders", "creatives"] as const;

/**
 * Compiled at build time (scripts/gen-validators.ts). The schema file is portable (standard
 * formats only: ARCHITECTURE.md), so its `URL` holds a pattern; the generator adds doohctl's
 * stricter check (src/model/url.ts) as the format `http-url`, explained by the same title.
 */
const VALIDATORS: Validators = {
  document,
  dialectFile: dialect_file,
  items: { insertion_orders: insertion_order, creatives: creative },
};

/** Lists longer than this are checked item by item. */
const LONG_LIST = 1_000;

/**
 * ajv's errors for the document. ajv gathers a `$ref`'s errors with `concat` (minutes for
 * 150,000 invalid items), so a long top-level list is checked item by item, each item's errors
 * under its path, then the document without it: the same errors.
 */
function validateDocument(value: unknown, as: SchemaRoot): ErrorObject[] {
  const { document, dialectFile, items } = VALIDATORS;
  if (as === "dialect_file") return dialectFile(value) ? [] : (dialectFile.errors ?? []).slice();
  const record = typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
  const long = LISTS.filter((key) => {
    const list = (record as Record<string, unknown> | undefined)?.[key];
    return Array.isArray(list) && list.length > LONG_LIST;
  });
  if (record === undefined || long.length === 0)
    return document(value) ? [] : (document.errors ?? []).slice();
  const rest: Record<string, unknown> = { ...record };
  for (const key of long) rest[key] = [];
  const errors: ErrorObject[] = document(rest) ? [] : (document.errors ?? []).slice();
  for (const key of long) {
    const list = (record as Record<string, unknown[]>)[key]!;
    const check = items[key];
    for (let i = 0; i < list.length; i++) {
      if (check(list[i])) continue;
      for (const error of check.errors ?? []) {
        errors.push({ ...error, instancePath: `/${key}/${i}${error.instancePath}` });
      }
    }
  }
  return errors;
}

export interface SchemaCheck {
  issues: ConfigIssue[];
  /** The values that broke the schema (JSON pointers): pruned, the rest goes on to later stages. */
  invalid: string[];
}

/** What a file is checked as: a config document, or a dialect file (src/config/dialect.ts). */
export type SchemaRoot = "document" | "dialect_file";

/** Checks one file's document; no issues when it conforms. */
export function checkSchema(value: unknown, index: SourceIndex, as: SchemaRoot = "document"): SchemaCheck {
  const errors = validateDocument(value, as);
  if (errors.length === 0) return { issues: [], invalid: [] };
  const invalid = errors.flatMap((error) => {
    // An `if` only says its branch failed; the branch's own errors name what to remove.
    if (error.keyword === "if") return [];
    if (error.keyword === "additionalProperties") {
      const key = String((error.params as { additionalProperty: unknown }).additionalProperty);
      return [`${error.instancePath}/${escapePointer(key)}`];
    }
    // A missing id, name or version is absent already: the object stays, so that the rules
    // still check the rest of it in this run (normalize stands in for the identity).
    const missing = error.keyword === "required" && error.params.missingProperty;
    return missing !== false && KEPT_WITHOUT.has(String(missing)) ? [] : [error.instancePath];
  });
  return { issues: translate(errors, value, index), invalid };
}

const KEPT_WITHOUT = new Set(["version", "id", "name"]);

/**
 * Removes each invalid value in place (a list item becomes `undefined`, so later positions stay
 * right); false when the whole document is invalid.
 */
export function pruneInvalid(value: unknown, pointers: readonly string[]): boolean {
  for (const pointer of pointers) {
    if (pointer === "") return false;
    const { segments, parent } = locate(value, pointer);
    const last = segments.at(-1);
    if (Array.isArray(parent) && typeof last === "number") parent[last] = undefined;
    else if (typeof parent === "object" && parent !== null && typeof last === "string") {
      delete (parent as Record<string, unknown>)[last];
    }
  }
  return true;
}

/** Definitions the model's parsers explain, by `title` (ajv's schemaPath is relative, so cannot say). */
const EXPLAINED: Record<string, string> = {
  Money: "money",
  Time: "time",
  Id: "id",
  "Venue type id": "venue_type_id",
  URL: "http_url",
  "Rate window": "rate_window",
};

function explainedDef(error: ErrorObject): string | undefined {
  const title = (error.parentSchema as { title?: unknown } | undefined)?.title;
  return typeof title === "string" ? EXPLAINED[title] : undefined;
}

function translate(errors: readonly ErrorObject[], value: unknown, index: SourceIndex): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  // The path's ancestors looked up in a Set: per explained value, 150,000 made this quadratic.
  const explainedPaths = new Set<string>();
  const isUnderExplained = (path: string) => {
    for (let end = path.length; end >= 0; end = path.lastIndexOf("/", end - 1)) {
      if (explainedPaths.has(path.slice(0, end))) return true;
      if (end === 0) break;
    }
    return false;
  };

  const at = (
    located: Located,
    code: ConfigIssueCode,
    message: string,
    options: { hint?: string; key?: string } = {},
  ) => {
    const { segments, parent } = located;
    const last = segments.at(-1);
    const segs = options.key === undefined ? segments : [...segments, options.key];
    const position =
      options.key !== undefined
        ? index.ofKey(located.data, options.key)
        : last === undefined
          ? index.ofObject(value)
          : index.ofValue(parent, last);
    issues.push({
      file: index.file,
      ...position,
      path: pathText(segs),
      message,
      ...(options.hint === undefined ? {} : { hint: options.hint }),
      code,
    });
  };

  // Leaf formats first: one explained message per value, none of ajv's branch noise.
  for (const error of errors) {
    const def = explainedDef(error);
    if (def === undefined || isUnderExplained(error.instancePath)) continue;
    const located = locate(value, error.instancePath);
    const explained = explainLeaf(def, located.data, {
      written: writtenOf(located, index),
      inList: typeof located.segments.at(-1) === "number",
      currency: budgetCurrency(value, located.segments),
    });
    explainedPaths.add(error.instancePath);
    at(
      located,
      explained.code,
      explained.message,
      explained.hint === undefined ? {} : { hint: explained.hint },
    );
  }

  const reported = new Set<string>();
  for (const error of errors) {
    if (isUnderExplained(error.instancePath)) continue;
    const located = locate(value, error.instancePath);
    const issue = schemaMessage(error, located, writtenOf(located, index));
    if (issue === undefined) continue;
    reported.add(error.instancePath);
    at(located, issue.code, issue.message, {
      ...(issue.hint === undefined ? {} : { hint: issue.hint }),
      ...(issue.key === undefined ? {} : { key: issue.key }),
    });
  }
  // A union that failed says nothing new when one of its branches already explained why.
  for (const error of errors) {
    if (error.keyword !== "anyOf" && error.keyword !== "oneOf") continue;
    if (isUnderExplained(error.instancePath) || reported.has(error.instancePath)) continue;
    at(locate(value, error.instancePath), "INVALID_VALUE", "does not match any allowed form of this field");
  }
  return issues;
}

/** For a campaign's `cpm`, its insertion order's `budget_money` currency (I3): what a bare `12.5` meant. */
function budgetCurrency(document: unknown, segments: readonly (string | number)[]): string | undefined {
  const [top, ioIndex, campaigns, , field] = segments;
  if (top !== "insertion_orders" || campaigns !== "campaigns" || field !== "cpm" || segments.length !== 5) {
    return undefined;
  }
  const ios = (document as { insertion_orders?: unknown } | null)?.insertion_orders;
  const budget = Array.isArray(ios)
    ? (ios[ioIndex as number] as { budget_money?: unknown } | null)?.budget_money
    : undefined;
  const code =
    typeof budget === "string"
      ? /\s([A-Z]{3})$/.exec(budget.trim())?.[1]
      : (budget as { currency_code?: unknown } | null | undefined)?.currency_code;
  return typeof code === "string" && /^[A-Z]{3}$/.test(code) ? code : undefined;
}

/** A number as the file wrote it (`0012`, not 12), so a hint that quotes it keeps its value. */
function writtenOf(located: Located, index: SourceIndex): string | undefined {
  const last = located.segments.at(-1);
  if ((typeof located.data !== "number" && typeof located.data !== "bigint") || last === undefined)
    return undefined;
  return index.writtenAt(located.parent, last);
}
