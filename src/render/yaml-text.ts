/**
 * The one rule for YAML doohctl writes (`export`, `pull`): values are quoted by the `yaml` library,
 * never by hand. A string holding a character that is not plain printable text is double-quoted,
 * the one style with escapes, so the file holds no raw control byte. What is written is parsed
 * back first as the loader reads it (`<<` a merge key, src/config/yaml/read.ts), and refused when
 * it reads otherwise: a DSP string is data, whatever it looks like to YAML (`*alias`, `...`).
 */
import { type Document, parseDocument, Scalar, stringify, visit } from "yaml";
import { acts, printable, terminalText } from "../model/printable.js";

export class YamlTextError extends Error {
  override readonly name = "YamlTextError";
  readonly code = "YAML_WRITE_REFUSED";
}

export type ScalarStyle = "PLAIN" | "QUOTE_DOUBLE" | "QUOTE_SINGLE";

/**
 * The library's double-quoted writer escapes what JSON escapes and leaves the rest raw: those get a
 * terminal's escapes (`terminalText`), YAML's too; only valid inside a double-quoted scalar.
 */
const escapeLeftRaw = (text: string) =>
  terminalText(text).replace(/\p{Cs}/gu, (half) => `\\u${half.charCodeAt(0).toString(16)}`);

/** What acts on a reader, and a lone surrogate half, which UTF-8 cannot hold: escaped. */
const mustEscape = (value: string) => acts(value) || /\p{Cs}/u.test(value);

/** Where a scalar's text goes: after `key: ` or in a flow list, or before `: ` as a key. */
export type ScalarPlace = "value" | "key";

/** The contexts, block and flow, a scalar's text is put in, and what the loader must read there. */
const PLACES: Record<ScalarPlace, (text: string, value: string) => [string, unknown][]> = {
  value: (t, v) => [
    [`k: ${t}\n`, { k: v }],
    [`k: [${t}]\n`, { k: [v] }],
  ],
  key: (t, v) => [
    [`${t}: k\n`, { [v]: "k" }],
    [`{${t}: k}\n`, { [v]: "k" }],
  ],
};

/**
 * One scalar's text in the author's style, or double-quoted when that cannot hold it; it must read
 * back the same in every context of its place, block and flow, else it is refused, named.
 */
export function yamlScalar(value: string, style: ScalarStyle, place: ScalarPlace = "value"): string {
  const styles: ScalarStyle[] = mustEscape(value) ? ["QUOTE_DOUBLE"] : [style, "QUOTE_DOUBLE"];
  for (const type of styles) {
    const scalar = new Scalar(value);
    scalar.type = type;
    const text = escapeLeftRaw(stringify(scalar, { lineWidth: 0 }).replace(/\n$/, ""));
    if (!text.includes("\n") && PLACES[place](text, value).every(([at, read]) => readsBackAs(at, read))) {
      return text;
    }
  }
  throw new YamlTextError(
    `the ${place} "${printable(value.slice(0, 60))}${value.length > 60 ? "…" : ""}" cannot be written as YAML that reads back the same: edit it by hand`,
  );
}

/**
 * A whole document as text, strings that must be escaped double-quoted; refused when it does not
 * parse back to the document's value.
 */
export function yamlDocument(doc: Document, options: Parameters<Document["toString"]>[0] = {}): string {
  visit(doc, {
    Scalar(_, node) {
      // The library writes a `<<` key plain, which a reader with merge keys on takes as one.
      if (typeof node.value === "string" && (mustEscape(node.value) || node.value === "<<"))
        node.type = "QUOTE_DOUBLE";
    },
  });
  const text = escapeLeftRaw(doc.toString(options));
  if (!readsBackAs(text, doc.toJS())) {
    throw new YamlTextError("the YAML written would not read back as the same values: nothing written");
  }
  return text;
}

/** Whether `text` reads as `expected` where the config loader reads it (merge keys on). */
function readsBackAs(text: string, expected: unknown): boolean {
  const doc = parseDocument(text, { merge: true });
  if (doc.errors.length > 0 || doc.warnings.length > 0) return false;
  try {
    return JSON.stringify(doc.toJS()) === JSON.stringify(expected);
  } catch {
    return false; // an alias with no anchor (`*alias`): the text is not the value
  }
}
