/** Where a value sits in a config document, as messages name it. */

/** `insertion_orders[0].campaigns[2].cpm` */
export function pathText(segments: readonly (string | number)[]): string {
  let text = "";
  for (const s of segments) text += typeof s === "number" ? `[${s}]` : text === "" ? s : `.${s}`;
  return text;
}

/** The path of `key` inside `path`: `insertion_orders[0]` and `cpm` make `insertion_orders[0].cpm`. */
export function childPath(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}
