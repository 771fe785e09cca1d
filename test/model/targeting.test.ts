import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Targeting, type TargetingOptionSet } from "../../src/model/targeting.js";
import { optionSet as targetingOptionSet } from "../helpers/targeting-arbitrary.js";

describe("Targeting", () => {
  it("treats id lists as sets and a missing exclude as false", () => {
    const a: TargetingOptionSet = { venue_type_targeting_option: { venue_type_ids: ["14", "12", "12"] } };
    const b: TargetingOptionSet = {
      venue_type_targeting_option: { venue_type_ids: ["12", "14"], exclude: false },
    };
    expect(Targeting.key(a)).toBe(Targeting.key(b));
    expect(Targeting.normalizeSet(a)).toEqual(b);
  });

  it("sorts numeric ids numerically", () => {
    const set = Targeting.normalizeSet({ publisher_targeting_option: { publisher_ids: ["100", "9", "20"] } });
    expect(set.publisher_targeting_option?.publisher_ids).toEqual(["9", "20", "100"]);
  });

  it("never gives a deal option an exclude flag", () => {
    expect(Targeting.normalizeSet({ deal_targeting_option: { deal_ids: ["d1"] } })).toEqual({
      deal_targeting_option: { deal_ids: ["d1"] },
    });
  });

  it("tells an excluded list from a targeted one", () => {
    const targeted = { venue_targeting_option: { venue_targeting_ids: ["1"] } };
    const excluded = { venue_targeting_option: { venue_targeting_ids: ["1"], exclude: true } };
    expect(Targeting.key(targeted)).not.toBe(Targeting.key(excluded));
  });

  it("compares lists as sets of option sets and reports a changed set as removed and added", () => {
    const x = { deal_targeting_option: { deal_ids: ["1"] } };
    const y = { publisher_targeting_option: { publisher_ids: ["7"] } };
    const y2 = { publisher_targeting_option: { publisher_ids: ["7", "8"] } };
    expect(Targeting.listEquals([x, y], [y, x])).toBe(true);
    const diff = Targeting.difference([x, y], [x, y2]);
    expect(diff.removed).toEqual([Targeting.normalizeSet(y)]);
    expect(diff.added).toEqual([Targeting.normalizeSet(y2)]);
  });
});

const ids = fc.array(fc.stringMatching(/^[0-9]{1,4}$/), { minLength: 1, maxLength: 5 });
const optionSet = targetingOptionSet({ ids: () => ids });

describe("Targeting properties", () => {
  it("normalization is idempotent", () => {
    fc.assert(
      fc.property(fc.array(optionSet, { maxLength: 6 }), (list) => {
        const once = Targeting.normalizeList(list);
        expect(Targeting.normalizeList(once)).toEqual(once);
      }),
    );
  });

  it("list equality ignores order and duplicates", () => {
    fc.assert(
      fc.property(fc.array(optionSet, { maxLength: 6 }), (list) => {
        const shuffled = [...list].reverse().concat(list.slice(0, 1));
        expect(Targeting.listEquals(list, shuffled)).toBe(true);
        const { added, removed } = Targeting.difference(list, shuffled);
        expect(added).toEqual([]);
        expect(removed).toEqual([]);
      }),
    );
  });

  it("keyed lists compare and diff as the plain lists do", () => {
    fc.assert(
      fc.property(fc.array(optionSet, { maxLength: 6 }), fc.array(optionSet, { maxLength: 6 }), (a, b) => {
        const ka = Targeting.keyed(a);
        const kb = Targeting.keyed(b);
        expect(ka.sets).toEqual(Targeting.normalizeList(a));
        expect(ka.keys).toEqual(ka.sets.map(Targeting.key));
        expect(Targeting.keyedEquals(ka, kb)).toBe(Targeting.listEquals(a, b));
        expect(Targeting.keyedDifference(ka, kb)).toEqual(Targeting.difference(a, b));
      }),
    );
  });
});
