/**
 * A live value written as the author wrote the value it replaces (docs/pull.md): the scalar's
 * quoting, money's decimals, a time's offset, a collection's flow or block style. YAML text out.
 */
import { isMap, isScalar, isSeq, type Node, Scalar } from "yaml";
import { Money } from "../model/money.js";
import { Time } from "../model/time.js";
import type { JsonValue } from "../plan/types.js";
import { type ScalarPlace, type ScalarStyle, yamlScalar } from "../render/yaml-text.js";

export class PullFormError extends Error {
  override readonly name = "PullFormError";
}

/** What the author wrote a value as, looked up once per replaced node. */
export interface AuthorForm {
  style: ScalarStyle;
  /** The scalar's text as written (without quotes), for money decimals and time offsets. */
  written?: string;
  flow: boolean;
  /** `{ a: 1 }` or `{a: 1}`. */
  padded: boolean;
  /** Style of the strings inside a collection. */
  itemStyle: ScalarStyle;
  /** Whether maps inside the collection were written in block style. */
  nestedBlock: boolean;
}

function styleOf(node: unknown): ScalarStyle | undefined {
  if (!isScalar(node)) return undefined;
  if (node.type === Scalar.QUOTE_DOUBLE || node.type === Scalar.QUOTE_SINGLE || node.type === Scalar.PLAIN) {
    return node.type;
  }
  throw new PullFormError("a block scalar (| or >) is not rewritten: change it by hand");
}

function firstStringStyle(node: unknown): ScalarStyle | undefined {
  if (isScalar(node)) return typeof node.value === "string" ? styleOf(node) : undefined;
  const children: unknown[] = isMap(node) ? node.items.map((p) => p.value) : isSeq(node) ? node.items : [];
  for (const child of children) {
    const found = firstStringStyle(child);
    if (found) return found;
  }
  return undefined;
}

function hasNestedBlockMap(node: unknown, depth: number): boolean {
  if (isMap(node)) {
    if (depth > 1 && !node.flow) return true;
    return node.items.some((p) => hasNestedBlockMap(p.value, depth + 1));
  }
  if (isSeq(node)) return node.items.some((item) => hasNestedBlockMap(item, depth + 1));
  return false;
}

/** `{ a: 1 }` or `{a: 1}`: as the first flow map of the node; padded when it has none. */
function padded(node: Node, text: string): boolean {
  const [start = 0, end = 0] = node.range ?? [];
  const brace = text.indexOf("{", start);
  return brace === -1 || brace >= end || text[brace + 1] === " ";
}

export function authorForm(node: Node, text: string): AuthorForm {
  const flow = isScalar(node) ? true : Boolean((node as { flow?: boolean }).flow);
  const style = styleOf(node) ?? "PLAIN";
  const form: AuthorForm = {
    style,
    flow,
    padded: padded(node, text),
    itemStyle: firstStringStyle(node) ?? "QUOTE_DOUBLE",
    nestedBlock: !flow && hasNestedBlockMap(node, 0),
  };
  if (isScalar(node) && typeof node.value === "string") form.written = node.value;
  return form;
}

/**
 * A scalar in the given style, or double-quoted when it cannot hold it: the `yaml` library's quoting
 * through the one YAML rule (src/render/yaml-text.ts), which refuses what would not read back.
 */
export function scalarText(value: JsonValue, style: ScalarStyle, place: ScalarPlace = "value"): string {
  if (typeof value !== "string") return value === null ? "null" : String(value);
  return yamlScalar(value, style, place);
}

/** `12.50 USD` with the author's decimals (at least as many as the amount needs). */
export function moneyText(value: Money, written: string | undefined): string {
  const formatted = Money.format(value); // at least the currency's minor units
  const [amount = "", currency = ""] = formatted.split(" ");
  const [whole = "", fraction = ""] = amount.split(".");
  const needed = fraction.replace(/0+$/, "");
  const authorDecimals = /\.([0-9]+)/.exec(written ?? "")?.[1]?.length ?? (written === undefined ? 2 : 0);
  let decimals = Math.max(authorDecimals, needed.length);
  if (authorDecimals === 0 && needed.length > 0) decimals = Math.max(2, needed.length);
  const digits = needed.padEnd(decimals, "0");
  return `${whole}${decimals > 0 ? `.${digits}` : ""} ${currency}`;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

/** The live instant in the author's offset (`+01:00`, `Z`), with milliseconds when needed. */
export function timeText(value: string, written: string | undefined): string {
  const zone = /([Zz]|[+-]\d{2}:\d{2})$/.exec(written ?? "")?.[1] ?? "Z";
  const fraction = /\.(\d+)(?:[Zz]|[+-])/.exec(written ?? "")?.[1]?.length ?? 0;
  const millis = Time.toMillis(value);
  const sign = zone.startsWith("-") ? -1 : 1;
  const offset =
    zone === "Z" || zone === "z" ? 0 : sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const local = new Date(millis + offset * 60_000);
  const ms = local.getUTCMilliseconds();
  const digits = ms > 0 || fraction > 0 ? `.${pad(ms, 3).padEnd(Math.max(fraction, 3), "0")}` : "";
  const year = local.getUTCFullYear();
  return `${pad(year, 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}${digits}${zone}`;
}

/** A JSON value in flow style: `{ a: 1, b: ["x"] }`. */
export function flowText(value: JsonValue, form: Pick<AuthorForm, "padded" | "itemStyle">): string {
  if (Array.isArray(value)) return `[${value.map((v) => flowText(v, form)).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).map(
      ([k, v]) => `${scalarText(k, "PLAIN", "key")}: ${flowText(v, form)}`,
    );
    if (entries.length === 0) return "{}";
    return form.padded ? `{ ${entries.join(", ")} }` : `{${entries.join(", ")}}`;
  }
  return scalarText(value, form.itemStyle);
}

/**
 * A list or map in block style, its first line where the node starts at `column`, the rest
 * indented; nested values in flow style.
 */
export function blockText(value: JsonValue, column: number, form: AuthorForm, eol: string): string {
  const indent = " ".repeat(column);
  const lines: string[] = [];
  const entry = (k: string, v: JsonValue, depth: number): string => {
    const key = `${scalarText(k, "PLAIN", "key")}:`;
    if (
      !form.nestedBlock ||
      v === null ||
      typeof v !== "object" ||
      Array.isArray(v) ||
      Object.keys(v).length === 0
    ) {
      return `${key} ${flowText(v, form)}`;
    }
    const inner = " ".repeat(depth);
    return [key, ...Object.entries(v).map(([ik, iv]) => `${inner}${entry(ik, iv, depth + 2)}`)].join("\n");
  };
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    for (const item of value) {
      if (item !== null && typeof item === "object" && !Array.isArray(item) && Object.keys(item).length > 0) {
        Object.entries(item).forEach(([k, v], i) => {
          lines.push(`${i === 0 ? "- " : "  "}${entry(k, v, 4)}`);
        });
      } else lines.push(`- ${flowText(item, form)}`);
    }
  } else if (value !== null && typeof value === "object") {
    if (Object.keys(value).length === 0) return "{}";
    for (const [k, v] of Object.entries(value)) lines.push(entry(k, v, 2));
  } else return flowText(value, form);
  return lines
    .flatMap((line) => line.split("\n"))
    .map((line, i) => (i === 0 ? line : `${indent}${line}`))
    .join(eol);
}
