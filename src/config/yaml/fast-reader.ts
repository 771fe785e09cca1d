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
 * every message a user sees comes from `yaml`, as before.
 * Where it does answer, its value and positions equal the full reader's
 * (test/config/yaml/fast-reader.test.ts checks both on generated and mutated documents).
 */
import { parseEvents } from "js-yaml";
import { LineCounter } from "yaml";
import { SourceIndex } from "../source-index.js";
import { EventReader } from "./event-reader.js";

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
    const events = parseEvents(text, {});
    const index = new SourceIndex(file, lineCounterOf(text), text);
    const value = new EventReader(text, events, index).document();
    return value === undefined ? undefined : { value, index };
  } catch {
    // Not swallowed but handed on: a syntax error (YAMLException), a HandOver, or any
    // other failure in here means the full reader reads the file and gives the answer, with
    // its located messages. A failure here costs speed, never a wrong or missing message;
    // the tests and the bench's "files read by the fast reader" show when it costs speed.
    return undefined;
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
