/**
 * `connection.dialect` as written (docs/connecting.md, Dialect): `parseDialect` alone judges it
 * (src/model/dialect.ts); each problem is an issue at its key, naming the gap decision it adapts.
 */
import { DIALECT_KEYS, type Dialect, parseDialect } from "../model/dialect.js";
import { childPath } from "./path-text.js";
import type { Place, Places } from "./places.js";
import { isMap, type Raw } from "./raw-values.js";

/** The dialect `raw` writes, defaults filling the rest; undefined when a value is refused (reported). */
export function normalizeDialect(raw: Raw, at: string, places: Places): Dialect | undefined {
  const parsed = parseDialect(raw);
  if ("dialect" in parsed) return parsed.dialect;
  for (const problem of parsed.problems) {
    const key = DIALECT_KEYS.find((k) => k.key === problem.key);
    const adapts = key === undefined ? "" : `; this key is ${key.gap} (docs/assumptions.md): ${key.adapts}`;
    places.issue(placeOf(raw, problem.key, at), "DIALECT_INVALID", `${problem.message}${adapts}`);
  }
  return undefined;
}

/** Where a dialect key was written, or the nearest enclosing key written when it is left to its default. */
function placeOf(raw: Raw, key: string, at: string): Place {
  let parent: Raw = raw;
  let path = at;
  const parts = key === "" ? [] : key.split(".");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const child = parent[part];
    if (i === parts.length - 1 || !isMap(child)) return { parent, key: part, path: childPath(path, part) };
    parent = child;
    path = childPath(path, part);
  }
  return { parent: raw, key: "", path: at };
}

/** A dialect file's document: `dialect:` and nothing else but `x-` keys (no `version`). */
export function isDialectDocument(value: unknown): value is Raw {
  return (
    isMap(value) &&
    Object.hasOwn(value, "dialect") &&
    Object.keys(value).every((key) => key === "dialect" || key.startsWith("x-"))
  );
}

/** The keys besides `dialect` and `x-` ones that a document holding `dialect:` writes. */
export function otherTopKeys(value: Raw): string[] {
  return Object.keys(value).filter((key) => key !== "dialect" && !key.startsWith("x-"));
}
