/**
 * ajv's errors in words a person can act on: an unknown key with the closest known one, a
 * missing key with what it is for, a wrong type with how to write it, an empty id list (G5).
 */
import type { ErrorObject } from "ajv/dist/2020.js";
import { originWithScheme, withoutUserinfo } from "../model/url.js";
import { apiOwnedKey } from "./api-owned.js";
import { describe, typeWord } from "./explain.js";
import type { ConfigIssueCode } from "./issues.js";
import type { Located } from "./json-pointer.js";
import { closest } from "./suggest.js";

/** Keys right one level up, by definition title: "unknown key" would hide where they belong. */
const TOP_LEVEL_ONLY: Record<string, Record<string, string>> = {
  "Insertion order policy": {
    max_added_spend:
      "max_added_spend limits what one apply adds to the maximum spend, all advertisers together, so it is a top-level rule only: move it to the top-level policy",
  },
};

export interface SchemaMessage {
  code: ConfigIssueCode;
  message: string;
  hint?: string;
  key?: string;
}

/** What to say of one ajv error at its value; undefined when another message covers it. */
export function schemaMessage(
  error: ErrorObject,
  located: Located,
  written: string | undefined,
): SchemaMessage | undefined {
  const params = error.params as Record<string, unknown>;
  const parentSchema = (error.parentSchema ?? {}) as Record<string, unknown>;
  switch (error.keyword) {
    case "additionalProperties": {
      const key = String(params.additionalProperty);
      // A password is reported once, by its own check, with the right advice.
      if (key.toLowerCase() === "password") return undefined;
      const owned = apiOwnedKey(parentSchema.title, key);
      if (owned !== undefined) return { code: "API_OWNED_KEY", message: owned, key };
      if (parentSchema.title === "Dialect file") {
        return {
          code: "DIALECT_INVALID",
          message: `"${key}" is not allowed in a dialect file`,
          hint: "a dialect file holds `dialect:` and `x-` keys only, so that CODEOWNERS can guard it alone: move this to a config file",
          key,
        };
      }
      const elsewhere = TOP_LEVEL_ONLY[String(parentSchema.title)]?.[key];
      if (elsewhere !== undefined) {
        return { code: "UNKNOWN_KEY", message: `"${key}" is not allowed here`, hint: elsewhere, key };
      }
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
      if (parentSchema.title === "Environment variable name") {
        // As for its pattern below: never quote what is written where a variable name belongs.
        return {
          code: "WRONG_TYPE",
          message: `expected the name of an environment variable, like DOOHCTL_NORTHWIND_EU_PASSWORD, found ${kindOf(located.data)} (not shown)`,
        };
      }
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
      // `*_from` names a variable; what is written there instead may be the credential itself
      // (a URL, an email, a password), so it is never quoted (docs/safety.md, Credentials).
      if (parentSchema.title === "Environment variable name") {
        return {
          code: "ACCOUNT_VARIABLE_INVALID",
          message:
            "is not the name of an environment variable starting with DOOHCTL_ (the value written is not shown)",
          hint: "write the NAME of the variable that holds the value, like DOOHCTL_NORTHWIND_EU_PASSWORD, and set the value in the CI's secrets, never in a file",
        };
      }
      return {
        code: "INVALID_VALUE",
        message: `"${withoutUserinfo(String(located.data))}" is not in the expected form`,
      };
    case "anyOf":
    case "oneOf":
      return undefined; // handled after the branches
    case "if":
      return undefined; // the branch that failed says why
    default:
      return { code: "INVALID_VALUE", message: error.message ?? "is not valid" };
  }
}

/** A value as written; a bigint (beyond the safe range, yaml/converter.ts) with all its digits. */
function literal(value: unknown): string {
  if (typeof value === "bigint") return value.toString();
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? item.toString() : item));
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

/** A key with nothing after it: `[]` removes all targeting or associations, so the hint names each way. */
function nothingHint(data: unknown, expected: readonly string[]): string | undefined {
  if (data !== null) return undefined;
  if (expected.includes("array")) {
    return "list its items under it (- ...), write [] to manage it as empty, or remove the key to leave it alone";
  }
  if (expected.includes("object")) return "write its keys under it, indented, or remove the key";
  return undefined;
}

/** What kind of value is written, without the value (`*_from`, where it may be a credential). */
function kindOf(data: unknown): string {
  if (data === null || data === undefined) return "nothing (null)";
  if (Array.isArray(data)) return "a list";
  if (typeof data === "bigint") return "a number";
  return typeWord(typeof data);
}
