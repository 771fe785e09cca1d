/** What pull brings into the config, and what it leaves out and why (docs/pull.md). */
import type { JsonValue } from "../plan/types.js";

/** How a value is written: decides its author's form (src/pull/forms.ts). */
export type PullValueKind = "scalar" | "time" | "money" | "ids" | "targetings" | "object";

/** One declared field whose live value differs: to be written at `path` in `file`. */
export interface PullItem {
  /** `campaign.1001/Holiday airports`, as the plan names it. */
  address: string;
  field: string;
  file: string;
  line: number;
  path: string;
  /** The config's value and the live one, as the plan compared them. */
  config: JsonValue;
  live: JsonValue;
  kind: PullValueKind;
}

/** A pulled field: where it went, and a note when it did not go where it was read from. */
export interface Pulled {
  address: string;
  field: string;
  file: string;
  line: number;
  config: JsonValue;
  live: JsonValue;
  note?: string;
}

/** Something that differs and that pull did not write (exit 1). */
export interface NotPulled {
  address: string;
  field?: string;
  file?: string;
  line?: number;
  reason: string;
}

export function itemKey(item: { address: string; field: string }): string {
  return `${item.address}\u0000${item.field}`;
}
