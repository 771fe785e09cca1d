/**
 * Stage 2: the JSON Schema, checked with ajv (draft 2020-12, all errors), and ajv's errors
 * turned into messages a person can act on, at the YAML position of the offending node.
 * Leaf formats (money, times, ids, rate windows) are explained by the same parsers that
 * normalize them, so the schema and the model never disagree on what a message says.
 */
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { isHttpUrl, originWithScheme, withoutUserinfo } from "../model/url.js";
import { apiOwnedKey } from "./api-owned.js";
import { describe, explainLeaf, typeWord } from "./explain.js";
import type { ConfigIssue, ConfigIssueCode } from "./issues.js";
import { configSchema } from "./schema-file.js";
import type { SourceIndex } from "./source-index.js";
import { closest } from "./suggest.js";

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (compiled === undefined) {
    const ajv = new Ajv2020({ allErrors: true, verbose: true, allowUnionTypes: true, strict: true });
    addFormats(ajv, ["uri"]);
    // Not ajv's strict `uri`, which refuses the macros real pixel URLs carry (`{cachebuster}`).
    ajv.addFormat("http-url", isHttpUrl);
    compiled = ajv.compile(configSchema());
  }
  return compiled;
}

export interface SchemaCheck {
  issues: ConfigIssue[];
  /**
   * JSON pointers of the values that broke the schema. Removing them (`pruneInvalid`) leaves
   * a document whose every remaining value has its schema shape, so later stages can still
   * run and report their own problems in the same run.
   */
  invalid: string[];
}

/** Checks one file's document; no issues when it conforms. */
export function checkSchema(value: unknown, index: SourceIndex): SchemaCheck {
  const validate = validator();
  if (validate(value)) return { issues: [], invalid: [] };
  const errors = validate.errors ?? [];
  const invalid = errors.flatMap((error) => {
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

function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * Removes each invalid value: a key is deleted from its map, a list item becomes `undefined`
 * (positions of the items after it stay right). Returns false when the whole document is
 * invalid. Mutates `value`, which is the parser's private copy.
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

interface Located {
  segments: (string | number)[];
  parent: unknown;
  data: unknown;
}

function locate(value: unknown, pointer: string): Located {
  const segments: (string | number)[] = [];
  let parent: unknown;
  let data = value;
  for (const raw of pointer === "" ? [] : pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    parent = data;
    if (typeof data !== "object" || data === null) {
      segments.push(key);
      data = undefined;
    } else if (Array.isArray(data)) {
      segments.push(Number(key));
      data = data[Number(key)];
    } else {
      segments.push(key);
      data = (data as Record<string, unknown> | undefined)?.[key];
    }
  }
  return { segments, parent, data };
}

/**
 * A value as written in a message. Integers beyond the safe range stay bigint (see
 * yaml-source.ts), which JSON.stringify refuses; they are shown with all their digits.
 */
function literal(value: unknown): string {
  if (typeof value === "bigint") return value.toString();
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? item.toString() : item));
}

/** `insertion_orders[0].campaigns[2].cpm` */
export function pathText(segments: readonly (string | number)[]): string {
  let text = "";
  for (const s of segments) text += typeof s === "number" ? `[${s}]` : text === "" ? s : `.${s}`;
  return text;
}

/**
 * Definitions whose errors the model's parsers explain, found by their `title` (ajv's
 * schemaPath is relative for definitions compiled as separate functions, so it cannot say).
 */
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
  const explainedPaths: string[] = [];
  const isUnderExplained = (path: string) =>
    explainedPaths.some((p) => path === p || path.startsWith(`${p}/`));

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
    explainedPaths.push(error.instancePath);
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
    const issue = translateOne(error, located, writtenOf(located, index));
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

interface Translated {
  code: ConfigIssueCode;
  message: string;
  hint?: string;
  key?: string;
}

/**
 * For a campaign's `cpm`, the currency of its insertion order's declared `budget_money`,
 * which the cpm must match (I3): the currency a bare `cpm: 12.5` most likely meant.
 */
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

function translateOne(
  error: ErrorObject,
  located: Located,
  written: string | undefined,
): Translated | undefined {
  const params = error.params as Record<string, unknown>;
  const parentSchema = (error.parentSchema ?? {}) as Record<string, unknown>;
  switch (error.keyword) {
    case "additionalProperties": {
      const key = String(params.additionalProperty);
      // A password is reported once, by its own check, with the right advice.
      if (key.toLowerCase() === "password") return undefined;
      const owned = apiOwnedKey(parentSchema.title, key);
      if (owned !== undefined) return { code: "API_OWNED_KEY", message: owned, key };
      const known = Object.keys((parentSchema.properties ?? {}) as Record<string, unknown>);
      const guess = closest(key, known);
      return {
        code: "UNKNOWN_KEY",
        message: `unknown key "${key}"`,
        hint: guess !== undefined ? `did you mean "${guess}"?` : `allowed keys here: ${known.join(", ")}`,
        key,
      };
    }
    case "required": {
      const key = String(params.missingProperty);
      const property = ((parentSchema.properties ?? {}) as Record<string, { description?: string }>)[key];
      return {
        code: "MISSING_KEY",
        message: `missing required key "${key}"`,
        ...(property?.description ? { hint: `${key}: ${property.description}` } : {}),
      };
    }
    case "type": {
      const expected = String(params.type).split(",");
      // A long digit run where text belongs (a contract number) wants quotes, not a limit.
      if (typeof located.data === "bigint" && !expected.includes("string")) {
        return {
          code: "NUMBER_TOO_LARGE",
          message: `${located.data} is too large: numbers go up to ${Number.MAX_SAFE_INTEGER}`,
        };
      }
      const found = describe(located.data);
      const quote =
        expected.includes("string") &&
        (typeof located.data === "number" ||
          typeof located.data === "bigint" ||
          typeof located.data === "boolean");
      const hint = quote
        ? `put it in quotes: "${written ?? String(located.data)}"`
        : (nothingHint(located.data, expected) ?? textHint(located.data, expected));
      return {
        code: "WRONG_TYPE",
        message: `expected ${expected.map(typeWord).join(" or ")}, found ${found}`,
        ...(hint === undefined ? {} : { hint }),
      };
    }
    case "enum": {
      const allowed = (params.allowedValues as unknown[]).map(String);
      const guess = typeof located.data === "string" ? closest(located.data, allowed) : undefined;
      return {
        code: "INVALID_VALUE",
        message: `${literal(located.data)} is not one of: ${allowed.join(", ")}`,
        ...(guess !== undefined ? { hint: `did you mean "${guess}"?` } : {}),
      };
    }
    case "const":
      return {
        code: "INVALID_VALUE",
        message: `must be ${JSON.stringify(params.allowedValue)}, found ${literal(located.data)}: this doohctl reads configuration version 1`,
        ...(String(located.data) === String(params.allowedValue)
          ? { hint: `write it as a number, without quotes: ${JSON.stringify(params.allowedValue)}` }
          : {}),
      };
    case "minItems":
      if (parentSchema.title === "Id list" || parentSchema.title === "Venue type id list") {
        // G5: each id list must be non-empty; an empty one would be refused by the API.
        return {
          code: "EMPTY_LIST",
          message:
            "an empty id list targets nothing: list at least one id, or remove this option (see docs/assumptions.md#g5)",
        };
      }
      return { code: "EMPTY_LIST", message: `list is empty: give at least ${String(params.limit)} item` };
    case "minProperties":
      return {
        code: "EMPTY_LIST",
        message: `option set is empty: give at least one of ${Object.keys(
          (parentSchema.properties ?? {}) as Record<string, unknown>,
        ).join(", ")}`,
      };
    case "minLength":
      return { code: "INVALID_VALUE", message: "must not be empty" };
    case "minimum":
      return {
        code: "INVALID_VALUE",
        message: `must be at least ${String(params.limit)}, found ${String(located.data)}`,
      };
    case "maximum":
      if (params.limit === Number.MAX_SAFE_INTEGER) {
        return {
          code: "NUMBER_TOO_LARGE",
          message: `${String(located.data)} is too large: whole numbers go up to ${Number.MAX_SAFE_INTEGER}, beyond which JSON loses digits`,
        };
      }
      return {
        code: "INVALID_VALUE",
        message: `must be at most ${String(params.limit)}, found ${String(located.data)}`,
      };
    case "format":
      // `api_origin: dsp.example.com`: the one thing missing is certain.
      if (params.format === "uri" && typeof located.data === "string") {
        const meant = originWithScheme(located.data);
        if (meant !== undefined) {
          return { code: "INVALID_VALUE", message: `"${located.data}" has no scheme: write "${meant}"` };
        }
      }
      return {
        code: "INVALID_VALUE",
        message: `"${withoutUserinfo(String(located.data))}" is not a valid ${String(params.format)}`,
      };
    case "pattern":
      return {
        code: "INVALID_VALUE",
        message: `"${withoutUserinfo(String(located.data))}" is not in the expected form`,
      };
    case "anyOf":
    case "oneOf":
      return undefined; // handled after the branches
    default:
      return { code: "INVALID_VALUE", message: error.message ?? "is not valid" };
  }
}

/** A boolean or number written as text: what to write instead. */
function textHint(data: unknown, expected: readonly string[]): string | undefined {
  if (typeof data !== "string") return undefined;
  const text = data.trim();
  if (expected.includes("boolean")) {
    if (/^(true|false)$/i.test(text)) return `write ${text.toLowerCase()}, without quotes`;
    if (/^(yes|no|on|off|y|n)$/i.test(text)) {
      const meant = /^(yes|on|y)$/i.test(text);
      return `write ${meant}: YAML 1.2 reads ${text} as text, not as ${meant}`;
    }
  }
  if ((expected.includes("integer") || expected.includes("number")) && /^-?[0-9]+$/.test(text)) {
    return `write ${text}, without quotes`;
  }
  return undefined;
}

/**
 * A key written with nothing after it. `[]` is not always what was meant (`targetings: []`
 * removes all targeting, `creatives: []` every association), so the hint names each way.
 */
function nothingHint(data: unknown, expected: readonly string[]): string | undefined {
  if (data !== null) return undefined;
  if (expected.includes("array")) {
    return "list its items under it (- ...), write [] to manage it as empty, or remove the key to leave it alone";
  }
  if (expected.includes("object")) return "write its keys under it, indented, or remove the key";
  return undefined;
}
