/**
 * Rewrites the drifted values of one config file in place, by splices at the ranges the `yaml`
 * parser reports: every other byte stays (comments, key order, quoting, line endings).
 *
 * Shared values (docs/pull.md): a value read through an anchor changes there only when every reader
 * drifted to the same value; otherwise the drifted object gets its own value (a key after `<<`, or
 * the alias replaced by a copy), so that what another object reads never changes.
 */
import {
  type Document,
  isMap,
  isScalar,
  isSeq,
  type Node,
  parseDocument,
  type Scalar,
  type YAMLMap,
} from "yaml";
import type { Money } from "../model/money.js";
import { Targeting, type TargetingOptionSet } from "../model/targeting.js";
import type { JsonValue } from "../plan/types.js";
import { YamlTextError } from "../render/yaml-text.js";
import {
  type AuthorForm,
  authorForm,
  blockText,
  flowText,
  moneyText,
  PullFormError,
  scalarText,
  timeText,
} from "./forms.js";
import { itemKey, type NotPulled, type Pulled, type PullItem } from "./items.js";
import { lineAt, lineStarts, type Splice } from "./line-diff.js";
import { keyText, type Located, locate, pathSegments } from "./locate.js";

/** One declared field of this file: who reads what (for the shared-value rule). */
export interface Reader {
  key: string;
  path: string;
}

export interface FileEdit {
  text: string;
  /** The splices made, in the original text's offsets: the diff is made from them. */
  splices: Splice[];
  pulled: Pulled[];
  notPulled: NotPulled[];
}

/** The file being edited: its text, line ending and parsed document. */
interface Ctx {
  text: string;
  eol: string;
  doc?: Document;
}

function lineOf(text: string, offset: number): number {
  return lineAt(lineStarts(text), offset) + 1;
}

export function columnOf(text: string, offset: number): number {
  return offset - (text.lastIndexOf("\n", offset - 1) + 1);
}

/** The replaced range of a block collection, without the comment and blank lines it ends with. */
export function valueRange(node: Node, text: string): [number, number] {
  const [start, end] = node.range ?? [0, 0];
  let stop = end;
  while (stop > start) {
    const lineStart = text.lastIndexOf("\n", stop - 2) + 1;
    if (lineStart <= start || !/^\s*(#.*)?\r?\n?$/.test(text.slice(lineStart, stop))) break;
    stop = lineStart;
  }
  return [start, stop];
}

/** Live option sets in the author's order of the sets that stay (the plan sorts them); new ones follow. */
function inAuthorOrder(value: JsonValue, node: Node, doc: Document | undefined): JsonValue {
  if (!Array.isArray(value) || !isSeq(node) || doc === undefined) return value;
  const rank = new Map<string, number>();
  node.items.forEach((item, i) => {
    try {
      const key = Targeting.key((item as Node).toJS(doc) as TargetingOptionSet);
      if (!rank.has(key)) rank.set(key, i);
    } catch {
      // A set the author wrote in a form this cannot read (a merge key): it ranks last.
    }
  });
  const at = (set: JsonValue) =>
    rank.get(Targeting.key(set as unknown as TargetingOptionSet)) ?? node.items.length;
  return value
    .map((set, i) => ({ set, i }))
    .sort((a, b) => at(a.set) - at(b.set) || a.i - b.i)
    .map(({ set }) => set);
}

/** The text that writes `value` where `node` was, in the node's form (`inline`: on one line). */
function valueText(item: PullItem, given: JsonValue, node: Node, ctx: Ctx & { inline: boolean }) {
  const value = item.kind === "targetings" ? inAuthorOrder(given, node, ctx.doc) : given;
  const form: AuthorForm = authorForm(node, ctx.text);
  if (isScalar(node) && (value === null || typeof value !== "object")) {
    if (item.kind === "time" && typeof value === "string")
      return scalarText(timeText(value, form.written), form.style);
    return scalarText(
      value,
      typeof value === "string" && typeof node.value !== "string" ? "PLAIN" : form.style,
    );
  }
  if (item.kind === "money" && value !== null && isScalar(node)) {
    const style = typeof node.value === "string" ? form.style : "PLAIN";
    return scalarText(moneyText(value as unknown as Money, form.written), style);
  }
  if (ctx.inline || form.flow || isScalar(node)) return flowText(value, form);
  const [start, end] = valueRange(node, ctx.text);
  const ends = /\r?\n$/.test(ctx.text.slice(start, end));
  return blockText(value, columnOf(ctx.text, start), form, ctx.eol) + (ends ? ctx.eol : "");
}

/** Splices that write `value` over `node`: money objects member by member, else the whole node. */
function replaceSplices(item: PullItem, value: JsonValue, node: Node, ctx: Ctx): Splice[] {
  if (
    item.kind === "money" &&
    isMap(node) &&
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value)
  ) {
    const money = value as unknown as Money;
    const members: Record<string, JsonValue> = {
      currency_code: money.currency_code,
      units: money.units,
      nanos: money.nanos,
    };
    const written = new Set(node.items.map((p) => keyText(p.key) ?? ""));
    if (!written.has("nanos") && money.nanos !== 0) return [whole(item, value, node, ctx)];
    const splices: Splice[] = [];
    for (const pair of node.items) {
      const key = keyText(pair.key) ?? "";
      const target = pair.value as Scalar | null;
      if (!(key in members) || !isScalar(target) || !target.range) continue;
      const next = members[key] ?? null;
      // The loader's documents hold integers as bigint (src/config/yaml/read.ts).
      const current = typeof target.value === "bigint" ? Number(target.value) : target.value;
      if (JSON.stringify(current) === JSON.stringify(next)) continue;
      const form = authorForm(target, ctx.text);
      splices.push({ start: target.range[0], end: target.range[1], text: scalarText(next, form.style) });
    }
    return splices;
  }
  return [whole(item, value, node, ctx)];
}

function whole(item: PullItem, value: JsonValue, node: Node, ctx: Ctx): Splice {
  const [start, end] = isScalar(node)
    ? [node.range?.[0] ?? 0, node.range?.[1] ?? 0]
    : valueRange(node, ctx.text);
  return { start, end, text: valueText(item, value, node, { ...ctx, inline: false }) };
}

/** An own value for an object that reads a shared one, or the reason it cannot have one. */
function ownValue(item: PullItem, located: Located, ctx: Ctx): Splice | string {
  const via = located.via;
  if (via === undefined) {
    return "the value is an anchor that other objects read through an alias or a merge key, and they did not drift to this value: edit it by hand";
  }
  if (via.rest.length > 0) {
    return `the value is inside a block reused through ${via.kind === "alias" ? "an alias" : "a merge key"}: give this object its own copy by hand`;
  }
  const text = valueText(item, item.live, located.node, { ...ctx, inline: true });
  if (via.kind === "alias") {
    const [start, end] = via.alias.range ?? [0, 0];
    return { start, end, text };
  }
  return mergeInsertion(via.map, via.mergePair.value as Node, via.key, text, ctx);
}

/** `key: value` right after the `<<` entry of a map, at that entry's indentation. */
function mergeInsertion(map: YAMLMap, mergeValue: Node, key: string, value: string, ctx: Ctx): Splice {
  const after = mergeValue.range?.[1] ?? 0;
  if (map.flow) return { start: after, end: after, text: `, ${key}: ${value}` };
  const mergeKey = map.items.find((p) => keyText(p.key) === "<<")?.key as Scalar | undefined;
  const column = columnOf(ctx.text, mergeKey?.range?.[0] ?? after);
  const lineEnd = ctx.text.indexOf("\n", after);
  const at = lineEnd === -1 ? ctx.text.length : lineEnd + 1;
  const lead = lineEnd === -1 ? ctx.eol : "";
  return { start: at, end: at, text: `${lead}${" ".repeat(column)}${key}: ${value}${ctx.eol}` };
}

export function editFile(input: {
  file: string;
  text: string;
  items: readonly PullItem[];
  /** Every declared field of the file, asked for only when a drifted value is shared. */
  readers: () => readonly Reader[];
  /** Campaigns `--new` appends (src/pull/append-new.ts), made in the same pass. */
  appends?: readonly Splice[];
  /** The document the config load parsed from this very text, so it is not parsed again. */
  document?: Document;
}): FileEdit {
  const { text, file } = input;
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const doc = input.document ?? parseDocument(text);
  const ctx: Ctx = { text, eol, doc };
  const pulled: Pulled[] = [];
  const notPulled: NotPulled[] = [];
  const refuse = (item: PullItem, reason: string) =>
    notPulled.push({ address: item.address, field: item.field, file, line: item.line, reason });
  if (doc.errors.length > 0) {
    for (const item of input.items) refuse(item, `${file} no longer parses: ${doc.errors[0]?.message ?? ""}`);
    return { text, splices: [], pulled, notPulled };
  }
  const groups = new Map<Node, { item: PullItem; located: Located }[]>();
  for (const item of input.items) {
    const located = locate(doc, pathSegments(item.path));
    if (!located) {
      refuse(item, `${item.path} is no longer in ${file}`);
      continue;
    }
    const group = groups.get(located.node) ?? [];
    group.push({ item, located });
    groups.set(located.node, group);
  }
  const readers = sharedReaders(doc, groups, input.readers);
  const splices: { splice: Splice; entries: { item: PullItem; note?: string }[] }[] = [];
  for (const [node, group] of groups) {
    const readBy = readers.get(node);
    const drifted = new Set(group.map((g) => itemKey(g.item)));
    const values = new Set(group.map((g) => JSON.stringify(g.item.live)));
    const allDrifted = readBy === undefined || [...readBy].every((k) => drifted.has(k));
    try {
      if (allDrifted && values.size === 1) {
        const first = group[0] as { item: PullItem; located: Located };
        const shared = group.length > 1 || first.located.via !== undefined;
        const note = shared
          ? `written at the shared value (line ${lineOf(text, node.range?.[0] ?? 0)}), which every object reading it has live`
          : undefined;
        const made = replaceSplices(first.item, first.item.live, node, ctx);
        for (const splice of made) {
          splices.push({ splice, entries: group.map((g) => ({ item: g.item, ...(note ? { note } : {}) })) });
        }
        if (made.length === 0) {
          for (const g of group) refuse(g.item, "the live value is already written: nothing to change");
        }
        continue;
      }
      for (const g of group) {
        const own = ownValue(g.item, g.located, ctx);
        if (typeof own === "string") refuse(g.item, own);
        else {
          const where = g.located.via?.kind === "alias" ? "the alias replaced by a copy" : "a key after `<<`";
          const note = `given its own value (${where}): the shared value at line ${lineOf(text, node.range?.[0] ?? 0)} stays, other objects read it`;
          splices.push({ splice: own, entries: [{ item: g.item, note }] });
        }
      }
    } catch (error) {
      if (!(error instanceof PullFormError || error instanceof YamlTextError)) throw error;
      for (const g of group) refuse(g.item, error.message);
    }
  }
  for (const splice of input.appends ?? []) splices.push({ splice, entries: [] });
  // Right to left, so that each splice's offsets still hold; an overlap is refused.
  splices.sort((a, b) => b.splice.start - a.splice.start || b.splice.end - a.splice.end);
  let out = text;
  let limit = Number.POSITIVE_INFINITY;
  const made: Splice[] = [];
  const done = new Set<string>();
  for (const { splice, entries } of splices) {
    if (splice.end > limit) {
      for (const e of entries)
        refuse(e.item, "overlaps another value pulled in the same place: edit it by hand");
      continue;
    }
    out = out.slice(0, splice.start) + splice.text + out.slice(splice.end);
    limit = splice.start;
    made.push(splice);
    for (const { item, note } of entries) {
      if (done.has(itemKey(item))) continue;
      done.add(itemKey(item));
      pulled.push({
        address: item.address,
        field: item.field,
        file,
        line: item.line,
        config: item.config,
        live: item.live,
        ...(note ? { note } : {}),
      });
    }
  }
  return { text: out, splices: made, pulled, notPulled };
}

/** For every drifted node read through an anchor, the declared fields that read it. */
function sharedReaders(
  doc: Document,
  groups: Map<Node, { located: Located }[]>,
  readers: () => readonly Reader[],
): Map<Node, Set<string>> {
  const shared = new Set<Node>();
  for (const [node, group] of groups) {
    if (group.length > 1 || group.some((g) => g.located.via !== undefined) || hasAnchor(node))
      shared.add(node);
  }
  const result = new Map<Node, Set<string>>();
  if (shared.size === 0) return result;
  for (const reader of readers()) {
    const located = locate(doc, pathSegments(reader.path));
    if (!located || !shared.has(located.node)) continue;
    const set = result.get(located.node) ?? new Set<string>();
    set.add(reader.key);
    result.set(located.node, set);
  }
  return result;
}

function hasAnchor(node: Node): boolean {
  return typeof (node as { anchor?: string }).anchor === "string";
}
