/** Values as the schema check lets them through: maps, ids that may be integers, lists with holes. */
import type { TargetingOptionSet } from "../model/targeting.js";

export type Raw = Record<string, unknown>;

export function isMap(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The design's id rule: a safe YAML integer becomes its decimal string. */
export function idText(value: unknown): string {
  return typeof value === "number" ? String(value) : (value as string);
}

export function present(list: readonly unknown[]): unknown[] {
  return list.filter((item) => item !== undefined);
}

export function targetingSet(raw: Raw): TargetingOptionSet {
  const out: Record<string, unknown> = {};
  for (const [member, option] of Object.entries(raw)) {
    const copy: Record<string, unknown> = {};
    if (option === undefined) continue;
    for (const [key, value] of Object.entries(option as Raw)) {
      copy[key] = Array.isArray(value) ? present(value).map(idText) : value;
    }
    out[member] = copy;
  }
  return out as TargetingOptionSet;
}
