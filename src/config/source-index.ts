/**
 * Where each value of a parsed config was written, by (object, key) in O(1), recorded by the
 * converter. A value reached through an alias or `<<` points at its anchor, where a fix belongs.
 */
import type { LineCounter } from "yaml";

/** Offsets of one mapping's keys and values, or of one sequence's items. */
export interface NodeOffsets {
  /** Start of the collection itself. */
  offset: number;
  keys?: Map<string, { key: number; value: number }>;
  items?: number[];
}

/** The characters a plain YAML number may be written with (`-1.5e3`, `0x1F`, `.inf`). */
const PLAIN_NUMBER = /[-+.0-9A-Za-z_]+/y;

export interface Position {
  line: number;
  column: number;
}

export class SourceIndex {
  // Not a WeakMap: it lives one load, and a WeakMap this large slows every collection (ephemerons).
  private readonly offsets = new Map<object, NodeOffsets>();

  constructor(
    readonly file: string,
    private readonly lineCounter: LineCounter,
    /** The file's text, to quote a scalar as it was written. */
    private readonly text: string,
  ) {}

  record(value: object, offsets: NodeOffsets): void {
    this.offsets.set(value, offsets);
  }

  offsetsOf(value: object): NodeOffsets | undefined {
    return this.offsets.get(value);
  }

  position(offset: number): Position {
    const { line, col } = this.lineCounter.linePos(offset);
    return { line, column: col };
  }

  /** Where a collection starts (its first key, for a block mapping). */
  ofObject(value: unknown): Position {
    const info = typeof value === "object" && value !== null ? this.offsets.get(value) : undefined;
    return this.position(info?.offset ?? 0);
  }

  /** Where the key of `parent[key]` was written; falls back to the parent. */
  ofKey(parent: unknown, key: string | number): Position {
    const info = typeof parent === "object" && parent !== null ? this.offsets.get(parent) : undefined;
    if (info === undefined) return this.position(0);
    if (typeof key === "number") return this.position(info.items?.[key] ?? info.offset);
    return this.position(info.keys?.get(key)?.key ?? info.offset);
  }

  /** The plain scalar `parent[key]` was written as (`0017` for 17), or undefined when not recorded. */
  writtenAt(parent: unknown, key: string | number): string | undefined {
    const info = typeof parent === "object" && parent !== null ? this.offsets.get(parent) : undefined;
    const offset = typeof key === "number" ? info?.items?.[key] : info?.keys?.get(key)?.value;
    if (offset === undefined) return undefined;
    PLAIN_NUMBER.lastIndex = offset;
    return PLAIN_NUMBER.exec(this.text)?.[0];
  }

  /** Where the value of `parent[key]` was written; falls back to its key, then the parent. */
  ofValue(parent: unknown, key: string | number): Position {
    const info = typeof parent === "object" && parent !== null ? this.offsets.get(parent) : undefined;
    if (info === undefined) return this.position(0);
    if (typeof key === "number") return this.position(info.items?.[key] ?? info.offset);
    return this.position(info.keys?.get(key)?.value ?? info.offset);
  }
}
