/**
 * The forms in which a hostile or careless server may echo a secret, for
 * the scrubbing tests: each names how it was made, so a failure says which form leaked.
 */

/** Every UTF-16 unit as `\uXXXX` (a surrogate pair beyond the BMP). */
const uEscaped = (text: string) =>
  text
    .split("")
    .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`)
    .join("");

const htmlNamed = (text: string) =>
  text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");

const htmlDecimal = (text: string) => [...text].map((ch) => `&#${ch.codePointAt(0)};`).join("");
const htmlHex = (text: string) =>
  [...text].map((ch) => `&#x${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase()};`).join("");

/** application/x-www-form-urlencoded: `+` for a space, %XX for the rest. */
const formEncoded = (text: string) => new URLSearchParams({ v: text }).toString().slice(2);

const lowerHexPercent = (text: string) =>
  encodeURIComponent(text).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());

const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
const base64Url = (text: string) => Buffer.from(text, "utf8").toString("base64url");

/** Every echo form of `password` (and of `email:password`), keyed by what it is. */
export function echoForms(password: string, email: string): Record<string, string> {
  const body = (prefix: string) => `${prefix}{"email":"${email}","password":"${password}"}`;
  return {
    raw: password,
    "upper-cased": password.toUpperCase(),
    "lower-cased": password.toLowerCase(),
    "JSON-escaped": JSON.stringify(password).slice(1, -1),
    "JSON-escaped twice": JSON.stringify(JSON.stringify(password)).slice(1, -1),
    "JSON-escaped, upper-cased": JSON.stringify(password.toUpperCase()).slice(1, -1),
    "\\u-escaped": uEscaped(password),
    "\\u-escaped, upper-cased": uEscaped(password).toUpperCase(),
    "\\u-escaped inside JSON": JSON.stringify(uEscaped(password)).slice(1, -1),
    "HTML-escaped (named)": htmlNamed(password),
    "HTML-escaped twice": htmlNamed(htmlNamed(password)),
    "HTML-escaped (&#decimal;)": htmlDecimal(password),
    "HTML-escaped (&#xHEX;)": htmlHex(password),
    "URL-escaped": encodeURIComponent(password),
    "URL-escaped, lower-case hex": lowerHexPercent(password),
    "URL-escaped twice": encodeURIComponent(encodeURIComponent(password)),
    "form-encoded (+ for space)": formEncoded(password),
    base64: base64(password),
    base64url: base64Url(password),
    "base64 of email:password": base64(`${email}:${password}`),
    "base64url of email:password": base64Url(`${email}:${password}`),
    "base64 of the login body": base64(body("")),
    "base64 of the login body, shifted by 1": base64(body("x")),
    "base64 of the login body, shifted by 2": base64(body("xy")),
    "base64url of the login body, shifted by 1": base64Url(body("x")),
  };
}

/**
 * What must not survive scrubbing of a form: the form itself, or, for a base64 text that
 * holds more than the secret, the base64 of the secret at any alignment (its middle part,
 * which only the secret's own bytes decide).
 */
export function leaks(text: string, password: string): string[] {
  const out: string[] = [];
  if (text.includes(password)) out.push("the password as is");
  if (text.toLowerCase().includes(password.toLowerCase())) out.push("the password in another case");
  for (let k = 0; k < 3; k++) {
    const encoded = Buffer.concat([Buffer.alloc(k), Buffer.from(password)]).toString("base64");
    const middle = encoded.slice(Math.ceil((8 * k) / 6) + 1, Math.floor((8 * (k + password.length)) / 6) - 1);
    if (middle.length >= 4 && text.includes(middle)) out.push(`base64 at alignment ${k}`);
    const url = middle.replaceAll("+", "-").replaceAll("/", "_");
    if (url.length >= 4 && text.includes(url)) out.push(`base64url at alignment ${k}`);
  }
  return out;
}
