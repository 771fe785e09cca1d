/**
 * The one rule for YAML that doohctl writes (`export`, `pull`, `pull --new`): values are
 * quoted by the `yaml` library, never by hand. A string holding a character that is not
 * plain printable text (a control character, NUL, DEL, a C1 control, a bidi or other format
 * character, U+2028 or U+2029) is written double-quoted, the one YAML style with escapes,
 * so the file holds no raw control byte: YAML readers accept it, git diffs it as text and a
 * terminal showing the diff does not act on it. Whatever is written is parsed back first and
 * refused when it does not read as the same value.
 */
import { type Document, parse, Scalar, stringify, visit } from "yaml";
import { acts, terminalText } from "../model/printable.js";

export class YamlTextError extends Error {
  override readonly name = "YamlTextError";
  readonly code = "YAML_WRITE_REFUSED";
}

export type ScalarStyle = "PLAIN" | "QUOTE_DOUBLE" | "QUOTE_SINGLE";

/**
 * The library's double-quoted writer escapes what JSON escapes (C0 controls, `"` and `\`)
 * and leaves the rest raw: those get the escapes a terminal shows (`terminalText`), which are
 * YAML's too. Only valid inside a double-quoted scalar, which is where values that `acts` are put.
 */
const escapeLeftRaw = terminalText;

/**
 * One scalar's source text in the author's style: double-quoted when it holds a character
 * that must be escaped (or when the library finds the style cannot hold it).
 */
export function yamlScalar(value: string, style: ScalarStyle): string {
  const scalar = new Scalar(value);
  scalar.type = acts(value) ? "QUOTE_DOUBLE" : style;
  const text = escapeLeftRaw(stringify(scalar, { lineWidth: 0 }).replace(/\n$/, ""));
  if (text.includes("\n") || !readsBackAs(`k: ${text}\n`, { k: value })) {
    throw new YamlTextError(
      `a value could not be written as YAML that reads back the same (${JSON.stringify(value).slice(0, 60)}): nothing written`,
    );
  }
  return text;
}

/**
 * A whole document as text, every string that must be escaped double-quoted and escaped;
 * `options` are the library's. Refused when the text does not parse back to the document's value.
 */
export function yamlDocument(doc: Document, options: Parameters<Document["toString"]>[0] = {}): string {
  visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === "string" && acts(node.value)) node.type = "QUOTE_DOUBLE";
    },
  });
  const text = escapeLeftRaw(doc.toString(options));
  if (!readsBackAs(text, doc.toJS())) {
    throw new YamlTextError("the YAML written would not read back as the same values: nothing written");
  }
  return text;
}

function readsBackAs(text: string, expected: unknown): boolean {
  try {
    return JSON.stringify(parse(text)) === JSON.stringify(expected);
  } catch {
    return false;
  }
}
