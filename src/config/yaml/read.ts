/**
 * Stage 1: text -> a plain JSON-like value plus a SourceIndex of positions.
 * YAML 1.2 core schema, so `2026-12-01T00:00:00Z` stays a string (no implicit timestamps);
 * `<<` merge keys on; duplicate keys are errors. Integers come in as bigint so that an id
 * with more digits than a double holds is caught ("quote this id") rather than rounded.
 *
 * Two readers give the same answer: the fast one (fast-reader.ts) for files within its
 * reach, and the full one (full-reader.ts, `yaml`), the reference, for the rest and for
 * every file with an error. This is the one way in for the rest of config.
 */

import { MAX_NESTING_DEPTH, valueTooDeepAt } from "../../model/json-depth.js";
import { pathText } from "../path-text.js";
import { readPlainYaml } from "./fast-reader.js";
import { type ParsedSource, parseYamlFully } from "./full-reader.js";

/**
 * Reads one file's YAML: through the fast event reader when the file is within what it
 * covers, else through `yaml`, which also explains every error.
 */
export function parseYaml(text: string, file: string): ParsedSource {
  const plain = readPlainYaml(text, file);
  return tooDeep(plain !== undefined ? { ...plain, issues: [], usable: true } : parseYamlFully(text, file));
}

/**
 * A value nested deeper than MAX_NESTING_DEPTH (src/model/json-depth.ts; a `pacing` is opaque
 * to the schema) is refused where it starts: the walks of later stages (the password search,
 * compare, the fingerprint) recurse, and thousands of levels overflowed the stack.
 */
function tooDeep(parsed: ParsedSource): ParsedSource {
  if (!parsed.usable) return parsed;
  const path = valueTooDeepAt(parsed.value);
  if (path === undefined) return parsed;
  let parent: unknown = parsed.value;
  for (const key of path.slice(0, -1)) parent = (parent as Record<string | number, unknown>)[key];
  const at = parsed.index.ofKey(parent, path[path.length - 1]!);
  return {
    ...parsed,
    usable: false,
    issues: [
      ...parsed.issues,
      {
        file: parsed.index.file,
        ...at,
        path: pathText(path),
        code: "NESTING_TOO_DEEP",
        message: `nested more than ${MAX_NESTING_DEPTH} levels deep, counted from the top of the file: a config value (a pacing too) nests at most ${MAX_NESTING_DEPTH} maps and lists; flatten it`,
      },
    ],
  };
}
