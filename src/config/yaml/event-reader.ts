/**
 * The fast reader's walk over js-yaml's events: one document's plain value, recording the
 * same positions in a SourceIndex as the full reader. On anything outside its reach it throws
 * HandOver (see fast-reader.ts).
 */
import {
  COLLECTION_STYLE,
  EVENT_ID,
  type Event,
  getScalarValue,
  SCALAR_STYLE,
  type ScalarEvent,
} from "js-yaml";
import type { NodeOffsets, SourceIndex } from "../source-index.js";
import { keyText, resolveScalar } from "./core-scalar.js";
import { HandOver } from "./hand-over.js";
import { setOwn } from "./plain-data.js";

interface Anchored {
  value: unknown;
  /** Where an anchored scalar was written: an alias of it points there (see converter.ts). */
  scalarStart?: number;
  /** Still being built: an alias to it would loop. */
  open: boolean;
}

type Keys = Map<string, { key: number; value: number }>;

export class EventReader {
  private next = 0;
  /** Where `yaml` says the node read last begins (kept here, not returned, to spare garbage). */
  private start = 0;
  /** One past where the node read last ends: where a flow collection's closing bracket is looked for. */
  private end = 0;
  /** Offsets of the `#` of each comment that starts a line; found on first use. */
  private commentLines: number[] | undefined;
  private readonly anchors = new Map<string, Anchored>();

  constructor(
    private readonly text: string,
    private readonly events: readonly Event[],
    private readonly index: SourceIndex,
  ) {}

  /** The one document's value, or undefined when the full reader must read it; may throw. */
  document(): unknown {
    const start = this.events[0];
    // More than one document, directives, an empty file or a bare scalar: the full reader
    // reports each (MULTIPLE_DOCS, EMPTY_FILE, ...). It also reads files with a `...` end
    // marker, after which `yaml` counts what follows (even a second `...`) as a new document.
    if (
      this.events.length < 3 ||
      start?.type !== EVENT_ID.DOCUMENT ||
      start.directives.length > 0 ||
      start.explicitEnd
    ) {
      return undefined;
    }
    const root = this.events[1];
    if (root?.type !== EVENT_ID.MAPPING && root?.type !== EVENT_ID.SEQUENCE) return undefined;
    this.next = 1;
    const value = this.node(undefined);
    // What remains is the document's POP: anything more is a second document.
    return this.next === this.events.length - 1 ? value : undefined;
  }

  /**
   * Reads the node at `next` and sets `start`. An empty scalar (`key:` with no value, a
   * null) has no text of its own: `emptyAt` says where `yaml` puts it, and without one the
   * full reader reads the file.
   */
  private node(emptyAt: number | undefined): unknown {
    const event = this.events[this.next++];
    switch (event?.type) {
      case EVENT_ID.SCALAR:
        return this.scalar(event, emptyAt);
      case EVENT_ID.MAPPING:
      case EVENT_ID.SEQUENCE: {
        if (event.tagStart !== -1) throw new HandOver();
        const out = event.type === EVENT_ID.MAPPING ? {} : [];
        const anchor = this.open(event.anchorStart, event.anchorEnd, out);
        if (Array.isArray(out)) this.sequence(out, event.start);
        else this.mapping(out, event.start, event.style === COLLECTION_STYLE.BLOCK);
        // A flow pair (`[a: 1]`) is a mapping with no brackets of its own.
        if (event.style === COLLECTION_STYLE.FLOW && OPENS_FLOW.has(this.text.charCodeAt(event.start))) {
          this.closeFlow(event.start, Array.isArray(out));
        }
        if (anchor) anchor.open = false;
        this.start = event.start;
        return out;
      }
      case EVENT_ID.ALIAS: {
        const target = this.anchors.get(this.anchorName(event.anchorStart, event.anchorEnd));
        // An unknown anchor, or one whose collection encloses this alias (a loop).
        if (target === undefined || target.open) throw new HandOver();
        this.start = target.scalarStart ?? event.anchorStart - 1;
        this.end = event.anchorEnd;
        return target.value;
      }
      default:
        throw new HandOver();
    }
  }

  private open(anchorStart: number, anchorEnd: number, value: unknown): Anchored | undefined {
    if (anchorStart === -1) return undefined;
    // `yaml` wants white space between an anchor and its node (`&a {` not `&a{`).
    if (!SEPARATORS.has(this.text.charCodeAt(anchorEnd))) throw new HandOver();
    const anchored = { value, open: true };
    this.anchors.set(this.anchorName(anchorStart, anchorEnd), anchored);
    return anchored;
  }

  /**
   * Finds the closing bracket of the flow collection opened at `open`, past its last item,
   * and sets `end` after it. `yaml` refuses a comment at the start of a line inside a flow
   * mapping (`{a: b` / `# note` / `}`), which js-yaml reads: such files, and any whose
   * bracket is not where it should be, go to the full reader.
   */
  private closeFlow(open: number, sequence: boolean): void {
    // With no item read since `open`, `end` still points before it.
    let at = Math.max(this.end, open + 1);
    for (let char = this.text.charCodeAt(at); FLOW_GAP.has(char); char = this.text.charCodeAt(at)) {
      if (char === HASH) {
        const newline = this.text.indexOf("\n", at);
        at = newline === -1 ? this.text.length : newline;
      } else at++;
    }
    if (this.text.charCodeAt(at) !== (sequence ? CLOSE_SEQUENCE : CLOSE_MAPPING)) throw new HandOver();
    this.end = at + 1;
    if (this.commentLineWithin(open, at)) throw new HandOver();
  }

  /**
   * Whether a comment starts a line between `from` and `to`. The comment lines are found once
   * per file and searched by halves: a scan per collection would be quadratic on a config
   * written as one long line of JSON.
   */
  private commentLineWithin(from: number, to: number): boolean {
    if (this.commentLines === undefined) {
      this.commentLines = [];
      for (let at = this.text.indexOf("\n#"); at !== -1; at = this.text.indexOf("\n#", at + 1)) {
        this.commentLines.push(at + 1);
      }
    }
    const lines = this.commentLines;
    let low = 0;
    let high = lines.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (lines[middle]! < from) low = middle + 1;
      else high = middle;
    }
    return low < lines.length && lines[low]! < to;
  }

  /** `yaml` refuses an anchor or alias name ending in `:` as ambiguous (`&a: 1`). */
  private anchorName(start: number, end: number): string {
    if (this.text.charCodeAt(end - 1) === COLON) throw new HandOver();
    return this.text.slice(start, end);
  }

  private mapping(out: Record<string, unknown>, start: number, block: boolean): void {
    const keys: Keys = new Map();
    // Keys that came in through `<<`: a key written in the mapping may override them once.
    let merged: Set<string> | undefined;
    for (let event = this.events[this.next]; event?.type !== EVENT_ID.POP; event = this.events[this.next]) {
      if (
        event?.type !== EVENT_ID.SCALAR ||
        event.anchorStart !== -1 ||
        event.valueStart === -1 ||
        !readable(event)
      ) {
        throw new HandOver(); // a list, map, alias, anchor, tag, block or empty scalar as a key
      }
      this.next++;
      const keyStart = scalarStart(event);
      if (block && !this.beginsLine(keyStart)) throw new HandOver();
      // YAML allows an implicit key at most 1024 characters before its `:`, and `yaml` refuses
      // longer ones (in block maps and flow pairs, not flow maps) where js-yaml reads them. No
      // config key comes near that: the full reader decides.
      if (event.valueEnd - keyStart > LONGEST_FAST_KEY) throw new HandOver();
      const name = this.scalarText(event);
      if (name === "<<" && event.style === SCALAR_STYLE.PLAIN) {
        merged = this.merge(out, keys, merged);
        continue;
      }
      const key = keyText(resolveScalar(name, event));
      if (keys.has(key) && merged?.delete(key) !== true) throw new HandOver(); // DUPLICATE_KEY
      setOwn(out, key, this.node(this.emptyValueAt(event)));
      keys.set(key, { key: keyStart, value: this.start });
    }
    this.next++;
    this.index.record(out, { offset: start, keys });
  }

  /**
   * Whether only indentation and `- ` indicators stand before `at` on its line, as before
   * every key of a block mapping. js-yaml also takes a key written after a flow collection
   * (`- {a: 1}b: 2`, even a `<<` that then merges into an outer mapping), which `yaml`
   * refuses.
   */
  private beginsLine(at: number): boolean {
    let before = at - 1;
    for (;;) {
      while (this.text.charCodeAt(before) === SPACE) before--;
      if (before < 0 || this.text.charCodeAt(before) === NEWLINE) return true;
      const indicator =
        this.text.charCodeAt(before) === DASH && SEPARATORS.has(this.text.charCodeAt(before + 1));
      if (!indicator) return false;
      before--;
    }
  }

  /**
   * Where `yaml` puts an empty value after this key: past the `:` and the spaces after it.
   * Undefined when the `:` does not follow the key at once (the full reader reads those).
   */
  private emptyValueAt(key: ScalarEvent): number | undefined {
    let at = key.style === SCALAR_STYLE.PLAIN ? key.valueEnd : key.valueEnd + 1;
    if (this.text.charCodeAt(at) !== COLON) return undefined;
    at++;
    while (this.text.charCodeAt(at) === SPACE) at++;
    return this.text.charCodeAt(at) === TAB ? undefined : at;
  }

  /** YAML merge: keys already present (written before or after `<<`) win. */
  private merge(out: Record<string, unknown>, keys: Keys, merged = new Set<string>()): Set<string> {
    const event = this.events[this.next];
    const sources: unknown[] = [];
    if (event?.type === EVENT_ID.SEQUENCE && event.anchorStart === -1 && event.tagStart === -1) {
      // `<<: [*a, *b]`: each item is merged, in order.
      this.next++;
      while (this.events[this.next]?.type !== EVENT_ID.POP) sources.push(this.node(undefined));
      this.next++;
      if (event.style === COLLECTION_STYLE.FLOW) this.closeFlow(event.start, true);
    } else {
      sources.push(this.node(undefined));
    }
    for (const source of sources) {
      const mergedKeys = typeof source === "object" && source !== null && this.index.offsetsOf(source)?.keys;
      if (!mergedKeys) throw new HandOver(); // not a map: the full reader says what to write
      for (const [key, entry] of Object.entries(source)) {
        if (keys.has(key)) continue;
        setOwn(out, key, entry);
        merged.add(key);
        const where = mergedKeys.get(key);
        if (where) keys.set(key, where);
      }
    }
    return merged;
  }

  private sequence(out: unknown[], start: number): void {
    const items: number[] = [];
    while (this.events[this.next]?.type !== EVENT_ID.POP) {
      out.push(this.node(undefined));
      items.push(this.start);
    }
    this.next++;
    this.index.record(out, { offset: start, items } satisfies NodeOffsets);
  }

  /** A plain or quoted scalar's text, where both readers agree on it. */
  private scalarText(event: ScalarEvent): string {
    if (!event.fast) {
      // Folding a scalar written over several lines is where YAML readers differ (yaml and
      // js-yaml disagree on an escaped line break before an empty line): the full reader
      // reads those.
      const newline = this.text.indexOf("\n", event.valueStart);
      if (newline !== -1 && newline < event.valueEnd) throw new HandOver();
    }
    // `yaml` wants a quoted scalar to end where a token may end (`''1'` is an error there).
    if (event.style !== SCALAR_STYLE.PLAIN && event.valueEnd + 1 < this.text.length) {
      if (!AFTER_QUOTE.has(this.text.charCodeAt(event.valueEnd + 1))) throw new HandOver();
    }
    return getScalarValue(this.text, event);
  }

  private scalar(event: ScalarEvent, emptyAt: number | undefined): unknown {
    if (!readable(event)) throw new HandOver();
    if (event.valueStart === -1) {
      if (emptyAt === undefined || event.anchorStart !== -1) throw new HandOver();
      this.start = emptyAt;
      this.end = emptyAt;
      return null;
    }
    const value = resolveScalar(this.scalarText(event), event);
    this.start = scalarStart(event);
    if (event.anchorStart !== -1) {
      const anchored = this.open(event.anchorStart, event.anchorEnd, value)!;
      anchored.open = false;
      anchored.scalarStart = this.start;
    }
    this.end = event.style === SCALAR_STYLE.PLAIN ? event.valueEnd : event.valueEnd + 1;
    return value;
  }
}

/**
 * Untagged plain and quoted scalars. A block scalar's event starts at its content, and where
 * its `|` or `>` stands would have to be searched for: configs hardly use them, so the full
 * reader reads those files.
 */
function readable(event: ScalarEvent): boolean {
  return (
    event.tagStart === -1 &&
    event.style !== SCALAR_STYLE.LITERAL_BLOCK &&
    event.style !== SCALAR_STYLE.FOLDED_BLOCK
  );
}

/** Where `yaml` starts a scalar node: at its opening quote, if any. */
function scalarStart(event: ScalarEvent): number {
  return event.style === SCALAR_STYLE.PLAIN ? event.valueStart : event.valueStart - 1;
}

/** Keys longer than this go to the full reader (see `mapping`). */
const LONGEST_FAST_KEY = 1000;
const COLON = 0x3a;
const SPACE = 0x20;
const TAB = 0x09;
const NEWLINE = 0x0a;
const DASH = 0x2d;
const HASH = 0x23;
const CLOSE_SEQUENCE = 0x5d;
const CLOSE_MAPPING = 0x7d;
const OPENS_FLOW = new Set([0x5b, 0x7b]);
/** What may stand between a flow collection's last item and its closing bracket. */
const FLOW_GAP = new Set([SPACE, TAB, NEWLINE, 0x0d, 0x2c, HASH]);
const SEPARATORS = new Set([SPACE, TAB, 0x0a, 0x0d]);
/** What may follow a closing quote: white space, `:`, or the end of a flow item. */
const AFTER_QUOTE = new Set([...SEPARATORS, COLON, 0x2c, 0x5d, 0x7d]);
