/**
 * The YAML 1.2 core schema's reading of a plain or quoted scalar, as the full reader (`yaml`)
 * has it, for the fast reader's events.
 */
import {
  boolCoreTag,
  floatCoreTag,
  intCoreTag,
  NOT_RESOLVED,
  nullCoreTag,
  SCALAR_STYLE,
  type ScalarEvent,
  type ScalarTagDefinition,
} from "js-yaml";
import { HandOver } from "./hand-over.js";

/** The core schema's integer and float forms. */
const NUMBER_SYNTAX =
  /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0x[0-9a-fA-F]+|0o[0-7]+)$/;

/** The core schema's implicit tags, in resolution order, by the first characters they match. */
const CORE_TAGS_BY_FIRST_CHAR = new Map<string, ScalarTagDefinition[]>();
for (const tag of [nullCoreTag, boolCoreTag, intCoreTag, floatCoreTag] as ScalarTagDefinition[]) {
  for (const first of tag.implicitFirstChars ?? []) {
    CORE_TAGS_BY_FIRST_CHAR.set(first, [...(CORE_TAGS_BY_FIRST_CHAR.get(first) ?? []), tag]);
  }
}

/**
 * The YAML 1.2 core schema's reading of a scalar, as the full reader has it: quoted and
 * block scalars are strings; a plain one may be null, a boolean or a number. An integer
 * beyond 2^53 goes to the full reader, which keeps its digits (and says "quote this id").
 */
export function resolveScalar(source: string, event: ScalarEvent): unknown {
  if (event.style !== SCALAR_STYLE.PLAIN) return source;
  const tags = CORE_TAGS_BY_FIRST_CHAR.get(source.charAt(0));
  if (tags === undefined) return source;
  for (const tag of tags) {
    const value = tag.resolve(source, false, tag.tagName);
    if (value === NOT_RESOLVED) continue;
    if (tag === intCoreTag && typeof value === "number") {
      if (!Number.isSafeInteger(value)) throw new HandOver();
      return value === 0 ? 0 : value; // `-0` is the integer 0, not a negative zero
    }
    return value;
  }
  // js-yaml leaves a number it cannot hold (`1e999`, 400 digits) as text, where `yaml`
  // makes it infinite or a bigint: the full reader keeps `yaml`'s reading.
  if (NUMBER_SYNTAX.test(source)) throw new HandOver();
  return source;
}

/** A key as the full reader names it: `String` of the scalar's value. */
export function keyText(value: unknown): string {
  return typeof value === "string" ? value : String(value);
}
