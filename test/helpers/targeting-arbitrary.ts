/**
 * Targeting option sets for the property tests, of every kind the table knows
 * (`TARGETING_OPTIONS`, src/model/targeting-members.ts): a kind added there is generated with
 * no edit here or in a test (ARCHITECTURE.md#adding-a-targeting-member). Each test says only
 * what its ids are, and whether `exclude` may be left out.
 */
import fc from "fast-check";
import type { TargetingOptionSet } from "../../src/model/targeting.js";
import { TARGETING_OPTIONS, type TargetingOptionKind } from "../../src/model/targeting-members.js";

export interface OptionValues {
  /** The id list of an option of `kind` (numeric strings for a numeric kind, unless a test means otherwise). */
  ids: (kind: TargetingOptionKind) => fc.Arbitrary<unknown[]>;
  /** `exclude`, for a kind that takes it; undefined leaves it out. Default: true, false or left out. */
  exclude?: fc.Arbitrary<boolean | undefined>;
}

function option(kind: TargetingOptionKind, values: OptionValues): fc.Arbitrary<Record<string, unknown>> {
  const exclude = values.exclude ?? fc.option(fc.boolean(), { nil: undefined });
  return fc.tuple(values.ids(kind), exclude).map(([ids, ex]) => ({
    [kind.ids.name]: ids,
    ...(kind.exclude && ex !== undefined ? { exclude: ex } : {}),
  }));
}

/** An option set holding one to every kind, each at most once (G5). */
export function optionSet(values: OptionValues): fc.Arbitrary<TargetingOptionSet> {
  const members = Object.fromEntries(TARGETING_OPTIONS.map((kind) => [kind.member, option(kind, values)]));
  return fc
    .record(members, { requiredKeys: [] })
    .filter((set) => Object.keys(set).length > 0) as fc.Arbitrary<TargetingOptionSet>;
}

/** An option set of exactly one kind. */
export function singleKindSet(values: OptionValues): fc.Arbitrary<TargetingOptionSet> {
  return fc
    .constantFrom(...TARGETING_OPTIONS)
    .chain((kind) => option(kind, values).map((o) => ({ [kind.member]: o }) as TargetingOptionSet));
}
