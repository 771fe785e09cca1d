/**
 * Targeting option sets (spec; G5), compared in normal form: id lists as sorted sets, `exclude`
 * false when absent (never on a deal), members in a fixed order; a list is a set of sets.
 */
import { type KnownTargetingMembers, TARGETING_OPTIONS } from "./targeting-members.js";

/** An option set: its known members, as TARGETING_OPTIONS describes them (targeting-members.ts). */
export interface TargetingOptionSet extends KnownTargetingMembers {
  /** G14: what a live set holds that doohctl does not know (the reader marks it); never sent or compared. */
  unknown_members?: string[];
}

/** Numeric strings in numeric order, then the rest in code-unit order: stable everywhere. */
export function compareIds(a: string, b: string): number {
  const an = /^[0-9]+$/.test(a);
  const bn = /^[0-9]+$/.test(b);
  if (an && bn) {
    if (a.length !== b.length) return a.length - b.length;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (an !== bn) return an ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortedIds(ids: readonly string[]): string[] {
  return [...new Set(ids)].sort(compareIds);
}

function normalizeSet(set: TargetingOptionSet): TargetingOptionSet {
  const out: Record<string, unknown> = {};
  const source = set as Record<string, Record<string, unknown> | undefined>;
  for (const { member, ids: list, exclude } of TARGETING_OPTIONS) {
    const option = source[member];
    if (option === undefined) continue;
    const ids = Array.isArray(option[list.name]) ? (option[list.name] as string[]) : [];
    out[member] = exclude
      ? { [list.name]: sortedIds(ids), exclude: option.exclude === true }
      : { [list.name]: sortedIds(ids) };
  }
  return out as TargetingOptionSet;
}

/** A stable text key of a normalized option set (canonical member and key order). */
function key(set: TargetingOptionSet): string {
  return JSON.stringify(normalizeSet(set));
}

/** A canonical list with each set's `key`, so lists already keyed are compared without normalizing again. */
export interface KeyedTargetings {
  sets: TargetingOptionSet[];
  keys: string[];
}

/** Normalizes each set, drops duplicates and sorts by key, keeping the keys. */
function keyed(list: readonly TargetingOptionSet[]): KeyedTargetings {
  const byKey = new Map<string, TargetingOptionSet>();
  for (const set of list) {
    const normalized = normalizeSet(set);
    byKey.set(JSON.stringify(normalized), normalized);
  }
  const entries = [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { sets: entries.map(([, set]) => set), keys: entries.map(([k]) => k) };
}

/** Normalizes each set, drops duplicates and sorts by key: a canonical list. Idempotent. */
function normalizeList(list: readonly TargetingOptionSet[]): TargetingOptionSet[] {
  return keyed(list).sets;
}

function keyedEquals(a: KeyedTargetings, b: KeyedTargetings): boolean {
  return a.keys.length === b.keys.length && a.keys.every((k, i) => k === b.keys[i]);
}

function listEquals(a: readonly TargetingOptionSet[], b: readonly TargetingOptionSet[]): boolean {
  return keyedEquals(keyed(a), keyed(b));
}

/** `difference` on lists already keyed. */
function keyedDifference(
  before: KeyedTargetings,
  after: KeyedTargetings,
): { added: TargetingOptionSet[]; removed: TargetingOptionSet[] } {
  const beforeKeys = new Set(before.keys);
  const afterKeys = new Set(after.keys);
  return {
    added: after.sets.filter((_, i) => !beforeKeys.has(after.keys[i] as string)),
    removed: before.sets.filter((_, i) => !afterKeys.has(before.keys[i] as string)),
  };
}

/** The normalized sets `after` adds and removes; G5: a changed set is removed and added. */
function difference(
  before: readonly TargetingOptionSet[],
  after: readonly TargetingOptionSet[],
): { added: TargetingOptionSet[]; removed: TargetingOptionSet[] } {
  return keyedDifference(keyed(before), keyed(after));
}

/** G14: the members of a live list doohctl does not know, sorted, each once. */
function unknownMembers(list: readonly TargetingOptionSet[]): string[] {
  return [...new Set(list.flatMap((set) => set.unknown_members ?? []))].sort();
}

/** `exclude: false` is the default (G5): left out, as a person writes an option (export, pull). */
function withoutDefaults(set: TargetingOptionSet): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(set).map(([member, option]) => {
      const { exclude, ...rest } = option as { exclude?: boolean };
      return [member, exclude === true ? { ...rest, exclude } : rest];
    }),
  );
}

export const Targeting = {
  unknownMembers,
  withoutDefaults,
  normalizeSet,
  normalizeList,
  key,
  keyed,
  listEquals,
  keyedEquals,
  difference,
  keyedDifference,
};
