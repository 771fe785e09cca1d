/**
 * The forms a secret takes when a server echoes it, as regular expressions: each character as
 * itself (any case), JSON-, `\u`-, HTML- or URL-escaped, once or more, the forms mixed within one
 * echo. Base64 (standard and URL-safe, at each of 3 alignments) is a second family of secrets.
 */

/** Characters a regular expression (without the `u` flag) needs escaped. */
const escapeRegExp = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");

/** Matches `text` with every ASCII letter in either case (escape letters, hex digits, entity names). */
function anyCase(text: string): string {
  let out = "";
  for (const ch of text) {
    const lower = ch.toLowerCase();
    const upper = ch.toUpperCase();
    out += lower !== upper ? `[${lower}${upper}]` : escapeRegExp(ch);
  }
  return out;
}

/** JSON's short escapes (RFC 8259, section 7). */
const SHORT_ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  "\b": "b",
  "\f": "f",
  "\n": "n",
  "\r": "r",
  "\t": "t",
};

/** HTML's named entities for the characters an escaper names. */
const ENTITIES: Record<string, string> = { "&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos" };

/** A backslash, doubled by each layer of JSON escaping: up to three layers. */
const BACKSLASHES = "\\\\{1,8}";

const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");

/** Every form one character (a code point) may take in an echo. */
function characterForms(ch: string, caseless: boolean): string {
  const cp = ch.codePointAt(0) ?? 0;
  const forms = new Set<string>();
  const literals = caseless ? [ch, ch.toLowerCase(), ch.toUpperCase()] : [ch];
  for (const literal of literals) forms.add(escapeRegExp(literal));
  if (ch === "\\") forms.add("\\\\{1,16}");
  const short = SHORT_ESCAPES[ch];
  if (short !== undefined && ch !== "\\") forms.add(`${BACKSLASHES}${escapeRegExp(short)}`);
  // \uXXXX, a surrogate pair for a character beyond the BMP.
  let units = "";
  for (let i = 0; i < ch.length; i++) units += `${BACKSLASHES}${anyCase(`u${hex(ch.charCodeAt(i), 4)}`)}`;
  forms.add(units);
  // &#NN; &#xHH; and a named entity, possibly under one or two more &amp; layers.
  const named = ENTITIES[ch];
  const entity = [`#0{0,4}${cp}`, `#${anyCase(`x`)}0{0,4}${anyCase(hex(cp, 1))}`];
  if (named !== undefined) entity.push(anyCase(named));
  forms.add(`&(?:${anyCase("amp;")}){0,2}(?:${entity.join("|")});`);
  // Percent-encoded UTF-8, possibly encoded once or twice more (%2541).
  const bytes = [...Buffer.from(ch, "utf8")].map((b) => `%(?:25){0,2}${anyCase(hex(b, 2))}`);
  forms.add(bytes.join(""));
  if (ch === " ") forms.add("\\+");
  return `(?:${[...forms].join("|")})`;
}

/** A regular expression matching `secret` in every echo form, each character on its own. */
export function echoPattern(secret: string, { caseless }: { caseless: boolean }): RegExp {
  let source = "";
  for (const ch of secret) source += characterForms(ch, caseless);
  return new RegExp(source, "g");
}

/**
 * The base64 texts that stand for `secret` wherever it sits in a longer encoded text: at
 * each of the 3 byte alignments, the characters that only its own bytes decide (a partial
 * character at either end depends on its neighbours), in the standard and URL-safe
 * alphabets; and the whole encoding of the secret alone, padded. Pieces shorter than 4
 * characters would match by chance and are left out.
 */
export function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const pieces = new Set<string>([bytes.toString("base64")]);
  for (let k = 0; k < 3; k++) {
    const encoded = Buffer.concat([Buffer.alloc(k), bytes]).toString("base64");
    pieces.add(encoded.slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + bytes.length)) / 6)));
  }
  const out = new Set<string>();
  for (const piece of pieces) {
    if (piece.length < 4) continue;
    out.add(piece);
    out.add(piece.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, ""));
  }
  return [...out];
}
