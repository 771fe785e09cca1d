/**
 * Stage 3 for `pacing`: opaque (G2) but sent as JSON, where an integer past 2^53 loses digits
 * and `.inf` is null, so every plan would show the change again.
 */
import { childPath } from "./path-text.js";
import type { Places } from "./places.js";
import type { Raw } from "./raw-values.js";

export function normalizePacing(raw: Raw, at: string, places: Places): Record<string, unknown> {
  const walk = (value: unknown, parent: unknown, key: string | number, path: string): unknown => {
    if (typeof value === "number" && !Number.isFinite(value)) {
      places.issue(
        { parent, key, path },
        "INVALID_VALUE",
        `${places.index.writtenAt(parent, key) ?? value} has no JSON form (the API would receive null): write a finite number, or null`,
      );
      return null;
    }
    if (typeof value === "bigint") {
      places.issue(
        { parent, key, path },
        "NUMBER_TOO_LARGE",
        `${value} is too large: numbers go up to ${Number.MAX_SAFE_INTEGER}`,
      );
      return null;
    }
    if (Array.isArray(value)) return value.map((v, i) => walk(v, value, i, `${path}[${i}]`));
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, walk(v, value, k, childPath(path, k))]),
      );
    }
    return value;
  };
  return walk(raw, undefined, "", at) as Record<string, unknown>;
}
