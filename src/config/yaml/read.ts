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

import { readPlainYaml } from "./fast-reader.js";
import { type ParsedSource, parseYamlFully } from "./full-reader.js";

/**
 * Reads one file's YAML: through the fast event reader when the file is within what it
 * covers, else through `yaml`, which also explains every error.
 */
export function parseYaml(text: string, file: string): ParsedSource {
  const plain = readPlainYaml(text, file);
  if (plain !== undefined) return { ...plain, issues: [], usable: true };
  return parseYamlFully(text, file);
}
