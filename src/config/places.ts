/**
 * Where the values of one file were written, and the issues found at them, while it is
 * normalized. A place is a parent, a key and a path text, not a list of segments: a
 * 10,000-campaign config names some 100,000 places.
 */
import type { SourceRef } from "../model/desired.js";
import type { ConfigIssue, ConfigIssueCode } from "./issues.js";
import type { SourceIndex } from "./source-index.js";

/** A value's place: `parent[key]`, at `path`. */
export interface Place {
  parent: unknown;
  key: string | number;
  path: string;
}

export class Places {
  readonly issues: ConfigIssue[] = [];

  constructor(readonly index: SourceIndex) {}

  /** Where `parent[key]` was written, with its path. */
  ref(parent: unknown, key: string | number, path: string): SourceRef {
    const { line, column } = this.index.ofValue(parent, key);
    return { file: this.index.file, line, column, path };
  }

  issue(at: Place, code: ConfigIssueCode, message: string): void {
    this.issues.push({ ...this.ref(at.parent, at.key, at.path), message, code });
  }

  /** One of the model's parsers on a value the schema accepted; a refusal is an issue at the value. */
  parsed<T>(at: Place, code: ConfigIssueCode, parse: () => T): T | undefined {
    try {
      return parse();
    } catch (error) {
      this.issue(at, code, error instanceof Error ? error.message : String(error));
      return undefined;
    }
  }

  /** Stands in for a refused id or name (reported): unique, it says where the object is; never in a plan. */
  unnamed(what: "id" | "name", list: unknown, i: number, at: string): string {
    const { file, line, column } = this.ref(list, i, at);
    return `(no valid ${what}, at ${file}:${line}:${column})`;
  }
}
