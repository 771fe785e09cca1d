/** Why a leaf is not what the schema wants, in the words of the model's parsers (Money, Time, RateLimit). */
import { RateLimit } from "../model/limits.js";
import { Money } from "../model/money.js";
import { Time } from "../model/time.js";
import { httpUrlProblem, withoutUserinfo } from "../model/url.js";
import type { ConfigIssueCode } from "./issues.js";

/** Where a value stands, for advice that depends on it. */
export interface LeafContext {
  /** A number as the file wrote it (`0012`), for hints that quote it. */
  written?: string | undefined;
  /** An item of a list: several ids may stand there, one per item. */
  inList?: boolean;
  /** The currency a bare amount most likely meant (its insertion order's budget's); USD else. */
  currency?: string | undefined;
}

export function explainLeaf(def: string, data: unknown, context: LeafContext = {}): Explained {
  const { written, inList = false, currency } = context;
  switch (def) {
    case "money":
      return explainMoney(data, written, currency);
    case "time":
      if (typeof data !== "string") {
        return notText("TIME_INVALID", "a date-time like 2026-12-01T00:00:00Z", data);
      }
      return { code: "TIME_INVALID", message: explainTime(data) };
    case "id":
      return explainId(data, written, inList);
    case "venue_type_id":
      return explainVenueTypeId(data, written, inList);
    case "http_url":
      if (typeof data !== "string") {
        return notText("WRONG_TYPE", "a URL like https://pixel.example.com/p?c=9001", data);
      }
      return {
        code: "INVALID_VALUE",
        message: `"${withoutUserinfo(data)}" ${httpUrlProblem(data) ?? "is not an absolute http or https URL"}: write it like https://pixel.example.com/p?c=9001`,
      };
    default:
      if (typeof data !== "string") return notText("RATE_LIMIT_INVALID", 'a rate like "10/60s"', data);
      try {
        RateLimit.parseWindow(data);
        return {
          code: "RATE_LIMIT_INVALID",
          message: `"${data}" is not a rate: write requests/duration, like 10/60s`,
        };
      } catch (error) {
        return { code: "RATE_LIMIT_INVALID", message: (error as Error).message };
      }
  }
}

type Explained = { code: ConfigIssueCode; message: string; hint?: string };

/** A value written as something other than the text it should be, with an example of that text. */
function notText(code: ConfigIssueCode, example: string, data: unknown): Explained {
  return { code, message: `expected ${example}, found ${describe(data)}` };
}

function explainId(data: unknown, written?: string, inList = false): Explained {
  if (typeof data === "bigint") {
    // As written: `00012345678901234567890` keeps its zeros.
    const text = written ?? String(data);
    return {
      code: "ID_TOO_LARGE",
      message: `${text} has more digits than a YAML number keeps exactly: quote this id`,
      hint: `write "${text}"`,
    };
  }
  if (data === "") return { code: "INVALID_VALUE", message: "an id must not be empty" };
  if (typeof data === "string" && /\s/.test(data)) return explainSpacedId(data, "an id has none", inList);
  const invisible = typeof data === "string" ? /[\p{Cc}\p{Cf}]/u.exec(data)?.[0] : undefined;
  if (typeof data === "string" && invisible !== undefined) {
    const code = `U+${invisible.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
    const visible = data.replace(/[\p{Cc}\p{Cf}]/gu, "");
    return {
      code: "INVALID_VALUE",
      message: `${JSON.stringify(data)} holds an invisible character (${code}), which no id has${visible === "" ? ", and nothing else: write the id" : ""}`,
      ...(visible === "" ? {} : { hint: `write ${JSON.stringify(visible)}` }),
    };
  }
  if (typeof data === "number" && Number.isInteger(data)) return idNumberProblem(data, written);
  return {
    code: "WRONG_TYPE",
    message: `an id is a string or a whole number, found ${describe(data)}: write it in quotes, like "1001"`,
  };
}

/** A numeric id the schema refused: beyond 2^53 it has lost digits, below 0 it names nothing. */
function idNumberProblem(id: number, written: string | undefined): Explained {
  if (Number.isInteger(id) && id > Number.MAX_SAFE_INTEGER) {
    // `1.5e300` as written, not the 301 digits it reads as.
    const text = written ?? String(id);
    return {
      code: "ID_TOO_LARGE",
      message: `${text} is beyond ${Number.MAX_SAFE_INTEGER}, where a YAML number loses digits: quote this id`,
      hint:
        written === undefined
          ? `write the id's exact digits in quotes, like "${BigInt(id)}"`
          : `write "${written}"`,
    };
  }
  return { code: "INVALID_VALUE", message: `${id} is not an id: ids are whole numbers from 0, or strings` };
}

/** G5: venue type ids are numeric strings; the API refuses any other. */
function explainVenueTypeId(data: unknown, written: string | undefined, inList: boolean): Explained {
  if (typeof data !== "string" || data === "") return explainId(data, written, inList);
  if (/\s|,/.test(data))
    return explainSpacedId(data, "a venue type id is digits only (see docs/assumptions.md#g5)", inList);
  return {
    code: "INVALID_VALUE",
    message: `"${data}" is not a venue type id: venue type ids are numeric (see docs/assumptions.md#g5)`,
    hint: `write the venue type's number, like "12"`,
  };
}

/**
 * An id with white space or a comma: a copied space, or several ids in one string. Where one id
 * belongs (a campaign's own), which was meant is the user's call.
 */
function explainSpacedId(id: string, rule: string, inList: boolean): Explained {
  const parts = id.split(/[\s,]+/).filter((part) => part !== "");
  if (parts.length > 1 && !inList) {
    return {
      code: "INVALID_VALUE",
      message: `"${id}" holds several values where one id belongs: write the one id meant, like "5001"`,
    };
  }
  if (parts.length > 1) {
    return {
      code: "INVALID_VALUE",
      message: `"${id}" holds several ids in one string: list each id as its own item`,
      hint: `write ${parts.map((part) => `"${part}"`).join(", ")} as separate items`,
    };
  }
  const trimmed = parts[0];
  if (trimmed === undefined) {
    return { code: "INVALID_VALUE", message: "an id must not be blank: write the id, or remove it" };
  }
  return {
    code: "INVALID_VALUE",
    message: `"${id}" has white space in it: ${rule}`,
    hint: `write "${trimmed}"`,
  };
}

/** Why `text` is not a time: nearly ISO 8601 gets the very time to write; else the parser's reason. */
function explainTime(text: string): string {
  const written =
    /^(\d{4}-\d{2}-\d{2})(?:[Tt ](\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?)?\s*([Zz]|[+-]\d{2}:?\d{2})?$/.exec(
      text.trim(),
    );
  if (written) {
    const [, date, clock, seconds = ":00", zone] = written;
    const offset = zone?.replace(/^([+-]\d{2})(\d{2})$/, "$1:$2");
    const repaired = `${date}T${clock ?? "00:00"}${seconds}${offset ?? "Z"}`;
    let parses = true;
    try {
      Time.parse(repaired);
    } catch {
      parses = false;
    }
    if (parses && repaired !== text) {
      if (clock === undefined) {
        return `"${text}" has no time of day: write "${repaired}" for midnight UTC, or the time and zone you mean`;
      }
      if (zone === undefined) {
        return `"${text}" has no zone: write "${repaired}" for UTC, or an offset like +01:00`;
      }
      return `"${text}" is not an ISO 8601 date-time: write "${repaired}"`;
    }
  }
  try {
    Time.parse(text);
    return `"${text}" is not a date-time like 2026-12-01T00:00:00Z`;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Why a value is not money, and how to write it. */
export function explainMoney(
  data: unknown,
  written?: string,
  currency = "USD",
): { code: ConfigIssueCode; message: string } {
  const code = "MONEY_INVALID";
  if (typeof data === "number" || typeof data === "bigint") {
    const amount = written ?? String(data);
    // Only an amount the money form can hold is worth writing out ("1e21 USD" is not one).
    return /^[0-9]+(\.[0-9]{1,9})?$/.test(amount)
      ? { code, message: `money needs a currency: write "${amount} ${currency}"` }
      : {
          code,
          message: `money needs a currency and plain digits, at most 9 after the point: write it like "12.50 USD"`,
        };
  }
  if (typeof data === "string") {
    let problem: string | undefined;
    try {
      if (Money.isNegative(Money.parse(data))) {
        return {
          code,
          message: `"${data}" is negative: amounts are never negative (see docs/assumptions.md#g8)`,
        };
      }
    } catch (error) {
      problem = (error as Error).message;
    }
    // The parser's own diagnosis when it has one, else the slip it could not name.
    if (problem !== undefined && !problem.includes("is not money")) return { code, message: problem };
    return { code, message: moneySlip(data) };
  }
  if (typeof data === "object" && data !== null && !Array.isArray(data)) {
    const record = data as Record<string, unknown>;
    const unitsWrong = unitsProblem(record.units);
    if (unitsWrong !== undefined) return { code, message: unitsWrong };
    const units = typeof record.units === "number" ? String(record.units) : record.units;
    try {
      Money.fromWire({
        currency_code: record.currency_code as string,
        units: units as string,
        ...(record.nanos === undefined ? {} : { nanos: record.nanos as number }),
      });
    } catch (error) {
      return {
        code,
        message: `${(error as Error).message}, like {currency_code: USD, units: "12", nanos: 500000000}`,
      };
    }
    const extra = Object.keys(record).filter((k) => !["currency_code", "units", "nanos"].includes(k));
    if (extra.length > 0) {
      return { code, message: `unknown key "${extra[0]}" in money: use currency_code, units and nanos` };
    }
    return { code, message: "amounts are never negative (see docs/assumptions.md#g8)" };
  }
  return { code, message: `expected money like "12.50 USD", found ${describe(data)}` };
}

/** Units the wire refuses: a YAML number is a double (1e21, digits past 2^53): only a string is exact. */
export function unitsProblem(units: unknown): string | undefined {
  if (typeof units === "bigint") return `units must be an integer string: write "${units}" (in quotes)`;
  if (typeof units === "number") {
    if (Number.isSafeInteger(units)) return undefined;
    const digits = Number.isInteger(units) ? BigInt(units).toString() : undefined;
    return digits === undefined
      ? `units must be a whole number, found ${units}: put the fraction in nanos`
      : `units must be an integer string: ${units} is beyond ${Number.MAX_SAFE_INTEGER}, where a YAML number loses digits; write "${digits}" (in quotes)`;
  }
  if (typeof units === "string" && /^0[0-9]+$/.test(units)) {
    return `units must be an integer string without leading zeros: write "${units.replace(/^0+(?=[0-9])/, "")}"`;
  }
  return undefined;
}

/** Why `text` is not money and what to write, for text the parser has no diagnosis of. */
function moneySlip(text: string): string {
  const repaired = repairMoney(text);
  if (repaired !== undefined) return `"${text}" is not money: write "${repaired}"`;
  const grouped = /^([0-9]+),([0-9]{3})\s*([A-Z]{3})$/.exec(text.trim());
  if (grouped) {
    const [, whole, part, currency] = grouped;
    return `"${text}" is not money: amounts have no comma; write "${whole}${part} ${currency}" for thousands, or "${whole}.${part} ${currency}"`;
  }
  return `"${text}" is not money: write an amount and a currency, like "12.50 USD"`;
}

const CURRENCY_SYMBOLS: Record<string, string> = { $: "USD", "€": "EUR", "£": "GBP" };

/**
 * The amount meant, where a slip is certain (`12,50 USD`, `USD 12.50`, `12.50USD`, `$12.50`, `.5`,
 * a lower-case code); never a guess at a comma before three digits (thousands or decimals).
 */
function repairMoney(text: string): string | undefined {
  let amount = text.trim().replace(/^\+/, "");
  const symbol = /^([$€£])\s*(.*)$/.exec(amount);
  if (symbol) amount = `${symbol[2]} ${CURRENCY_SYMBOLS[symbol[1]!]}`;
  const currencyFirst = /^([A-Za-z]{3})\s*([-+]?[0-9.,]+)$/.exec(amount);
  if (currencyFirst) amount = `${currencyFirst[2]} ${currencyFirst[1]}`;
  const parts = /^([0-9.,]+)\s*([A-Za-z]{3})$/.exec(amount);
  if (!parts) return undefined;
  let number = parts[1]!;
  if (/^[0-9]{1,3}(,[0-9]{3}){2,}$/.test(number)) number = number.replace(/,/g, "");
  else if (/^[0-9]+,([0-9]{1,2}|[0-9]{4,9})$/.test(number)) number = number.replace(",", ".");
  number = number.replace(/^\./, "0.").replace(/\.$/, "");
  const repaired = `${number} ${parts[2]!.toUpperCase()}`;
  if (repaired === text || !/^[0-9]+(\.[0-9]{1,9})? [A-Z]{3}$/.test(repaired)) return undefined;
  return repaired;
}

export function typeWord(type: string): string {
  const words: Record<string, string> = {
    object: "a map (key: value)",
    array: "a list",
    string: "a string",
    integer: "a whole number",
    number: "a number",
    boolean: "true or false",
    null: "null",
  };
  return words[type] ?? type;
}

export function describe(data: unknown): string {
  if (data === null || data === undefined) return "nothing (null)";
  if (Array.isArray(data)) return "a list";
  if (typeof data === "object") return "a map";
  if (typeof data === "string") return `the string "${data}"`;
  if (typeof data === "boolean") return String(data);
  if (typeof data === "bigint" || typeof data === "number") return `the number ${String(data)}`;
  return typeof data;
}
