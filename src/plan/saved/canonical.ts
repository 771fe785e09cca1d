/**
 * Canonical JSON (keys sorted at every level) for plan files and fingerprints. For speed the
 * native `JSON.stringify` writes it, handed the value, a sorted copy of only the unsorted parts,
 * or a Proxy for array-index keys (which no plain object holds sorted); what is not plain JSON
 * is written by hand and spliced in for a placeholder.
 */
import { randomUUID } from "node:crypto";

/** `JSON.stringify` indents by at most ten characters. */
const MAX_NATIVE_INDENT = 10;

const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/;
const isIndexKey = (k: string) => INDEX_KEY.test(k) && Number(k) < 4294967295;

interface Holes {
  /** Made on the first hole: most values have none, and fingerprints make 20,000 of these. */
  tag: string | undefined;
  readonly parts: { value: unknown; depth: number }[];
  /** A form holds a Proxy (`inKeyOrder`): fine to write, not to keep in a plain-data plan. */
  proxied: boolean;
}

const noHoles = (): Holes => ({ tag: undefined, parts: [], proxied: false });

export function canonicalJson(value: unknown, indent = ""): string {
  if (indent.length > MAX_NATIVE_INDENT) return write(value, indent, "\n");
  const holes = noHoles();
  const text = JSON.stringify(formOf(value, 0, holes), null, indent) ?? "null";
  return fill(text, holes, indent) ?? write(value, indent, "\n");
}

/**
 * The compact canonical text of `value`, and `value` itself in canonical key order where it
 * can be (else as given): kept in a plan, it is then written again without being copied.
 */
export function canonicalPair(value: unknown): { text: string; value: unknown } {
  const holes = noHoles();
  const form = formOf(value, 0, holes);
  const text = fill(JSON.stringify(form) ?? "null", holes, "") ?? write(value, "", "\n");
  return { text, value: holes.tag === undefined && !holes.proxied ? form : value };
}

/**
 * An object whose keys come in the order given (not sorted) with canonical JSON values,
 * indented by `indent`: the saved-plan document, whose top-level fields keep the Plan's order.
 */
export function canonicalDocument(fields: readonly (readonly [string, unknown])[], indent: string): string {
  const holes = noHoles();
  const document: Record<string, unknown> = Object.create(null);
  for (const [key, value] of fields) document[key] = formOf(value ?? null, 1, holes);
  const native = indent.length <= MAX_NATIVE_INDENT && !Object.keys(document).some(isIndexKey);
  const filled = native ? fill(JSON.stringify(document, null, indent), holes, indent) : undefined;
  if (filled !== undefined) return filled;
  const deeper = `\n${indent}`;
  const entries = fields.map(
    ([key, value]) => `${indent}${JSON.stringify(key)}: ${write(value ?? null, indent, deeper)}`,
  );
  return `{\n${entries.join(",\n")}\n}`;
}

/** Replaces each placeholder with its part written by hand; undefined if the count is off. */
function fill(text: string, holes: Holes, indent: string): string | undefined {
  if (holes.tag === undefined) return text;
  let found = 0;
  const filled = text.replace(new RegExp(`"${holes.tag}([0-9]+)"`, "g"), (_, n: string) => {
    found++;
    const part = holes.parts[Number(n)];
    return part ? write(part.value, indent, `\n${indent.repeat(part.depth)}`) : "";
  });
  // A string in the data that happened to look like a placeholder: trust nothing, write all.
  return found === holes.parts.length ? filled : undefined;
}

function hole(value: unknown, depth: number, holes: Holes): string {
  holes.tag ??= `@canonical-${randomUUID()}-`;
  holes.parts.push({ value, depth });
  return `${holes.tag}${holes.parts.length - 1}`;
}

/** What `JSON.stringify` is given for `value` at nesting `depth`. */
function formOf(value: unknown, depth: number, holes: Holes): unknown {
  if (value === null) return value;
  const type = typeof value;
  if (type === "function" || type === "symbol") return hole(value, depth, holes);
  if (type !== "object") return value;
  if (Array.isArray(value)) return arrayForm(value, depth, holes);
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return hole(value, depth, holes);
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source);
  let sorted = true;
  let previous = "";
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (source[key] === undefined) continue; // neither writer writes it
    if (i > 0 && !(previous < key)) sorted = false;
    previous = key;
  }
  if (!sorted) {
    // "__proto__" would set a plain copy's prototype.
    if (keys.includes("__proto__")) return hole(value, depth, holes);
    keys.sort();
  }
  // Copied only when the keys are out of order or a value below them is.
  let copy: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const item = source[key];
    if (item === undefined) continue;
    const form = formOf(item, depth + 1, holes);
    if (copy === undefined && (form !== item || !sorted)) {
      copy = {};
      for (let j = 0; j < i; j++) {
        const earlier = keys[j] as string;
        if (source[earlier] !== undefined) copy[earlier] = source[earlier];
      }
    }
    if (copy !== undefined) copy[key] = form;
  }
  if (copy !== undefined && !sorted && keys.some(isIndexKey)) return inKeyOrder(copy, holes);
  return copy ?? value;
}

/**
 * `copy` with its keys in canonical order: an object lists array-index keys first, numerically,
 * but JSON.stringify takes a Proxy's `ownKeys` order (ECMA-262 EnumerableOwnProperties). As a
 * hole, one order's campaigns sent the whole document (57 MB at 20,000) through `fill` again.
 */
function inKeyOrder(copy: Record<string, unknown>, holes: Holes): object {
  holes.proxied = true;
  const keys = Object.keys(copy).sort();
  return new Proxy(copy, { ownKeys: () => keys });
}

function arrayForm(value: readonly unknown[], depth: number, holes: Holes): unknown {
  for (let i = 0; i < value.length; i++) {
    // A hole in the array: `write` joins it as "", which no form of it gives.
    if (value[i] === undefined && !(i in value)) return hole(value, depth, holes);
  }
  let copy: unknown[] | undefined;
  for (let i = 0; i < value.length; i++) {
    const item = value[i];
    const form = formOf(item, depth + 1, holes);
    if (form !== item && copy === undefined) copy = value.slice(0, i);
    if (copy !== undefined) copy.push(form);
  }
  return copy ?? value;
}

/** The canonical text written by hand: the definition the native path must match. */
function write(value: unknown, indent: string, newline: string): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  const inner = indent === "" ? "" : `${newline}${indent}`;
  const deeper = indent === "" ? newline : `${newline}${indent}`;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const items = value.map((v) => write(v ?? null, indent, deeper));
    return indent === "" ? `[${items.join(",")}]` : `[${inner}${items.join(`,${inner}`)}${newline}]`;
  }
  const keys = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort();
  if (keys.length === 0) return "{}";
  const sep = indent === "" ? ":" : ": ";
  const entries = keys.map(
    (k) => `${JSON.stringify(k)}${sep}${write((value as Record<string, unknown>)[k], indent, deeper)}`,
  );
  return indent === "" ? `{${entries.join(",")}}` : `{${inner}${entries.join(`,${inner}`)}${newline}}`;
}
