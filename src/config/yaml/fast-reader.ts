/**
 * The fast reader of stage 1: YAML text -> the same plain value and SourceIndex as the full
 * reader (full-reader.ts), from js-yaml's event stream instead of `yaml`'s document tree.
 *
 * `yaml` builds a concrete syntax tree and a document of node objects before any value
 * exists: on a 10,000-campaign config that is most of the load time. js-yaml's parser emits
 * a flat list of events that carry source offsets, at a fraction of the cost. It covers
 * what configs are made of: block and flow collections, plain and quoted scalars, anchors,
 * aliases and `<<` merge keys, under the YAML 1.2 core schema.
 *
 * It is a fast path, never a second opinion: on anything outside that (a syntax error, a
 * tag, a directive, a block scalar, a scalar written over several lines, a duplicate key,
 * an integer beyond 2^53, a non-scalar key, an alias loop, more than one document, a merge
 * of something not a map, text that js-yaml reads on past where `yaml` stops) it returns
 * undefined (the reader throws HandOver, hand-over.ts) and the full reader reads the file, so
 * every message a user sees comes from `yaml`, as before. Any other error is a bug: it
 * propagates rather than passing for a slow path.
 * Where it does answer, its value and positions equal the full reader's
 * (test/config/yaml/fast-reader.test.ts checks both on generated and mutated documents).
 */
import { type Event, parseEvents, YAMLException } from "js-yaml";
import { LineCounter } from "yaml";
import { SourceIndex } from "../source-index.js";
import { EventReader } from "./event-reader.js";
import { HandOver } from "./hand-over.js";

/** The value and its positions; undefined when the full reader must read this text. */
export function readPlainYaml(
  text: string,
  file: string,
): { value: unknown; index: SourceIndex } | undefined {
  // YAML 1.2 reads a lone carriage return as a line break; `yaml` reads it as text. And
  // `yaml` refuses tabs in indentation, and reads an indented `---` or `...` as text, where
  // js-yaml lets them pass as indentation and markers. js-yaml also reads on after a `...`
  // that starts a line (`... {}`) and skips a directive it does not know (`%YAM 1.2`), where
  // `yaml` refuses both. Such files go to the full reader, whose reading the rest of
  // doohctl was built and tested on.
  if (READ_DIFFERENTLY.test(text)) return undefined;
  try {
    const events = eventsOf(text);
    const index = new SourceIndex(file, lineCounterOf(text), text);
    const value = new EventReader(text, events, index).document();
    return value === undefined ? undefined : { value, index };
  } catch (error) {
    // Only the hand-over is caught: the full reader then reads the file and gives the answer,
    // with its located messages. Anything else thrown in here is a bug in the fast reader,
    // and must not pass for a slow path.
    if (error instanceof HandOver) return undefined;
    throw error;
  }
}

/** js-yaml's events; a text it refuses as YAML is handed over, for `yaml` to explain. */
function eventsOf(text: string): Event[] {
  try {
    return parseEvents(text, {});
  } catch (error) {
    if (error instanceof YAMLException) throw new HandOver(error.message);
    throw error;
  }
}

/**
 * A lone CR, a tab in indentation (also after a `- `, `? ` or `: ` indicator), an indented
 * `---` or `...`, a line starting with `...` or `%`: one pass over the text.
 */
const READ_DIFFERENTLY = /\r(?!\n)|^[ ?:-]*\t|^[ \t]+(?:---|\.\.\.)|^(?:\.\.\.|%)/m;

/** `yaml`'s line counter, fed what its parser would give it: 0, and one past each `\n`. */
function lineCounterOf(text: string): LineCounter {
  const lines = new LineCounter();
  lines.addNewLine(0);
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines.addNewLine(at + 1);
  return lines;
}
