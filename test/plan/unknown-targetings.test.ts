/**
 * G14: fingerprints cover the members doohctl decides with and the targeting members it does
 * not know, so a plan goes stale when one appears or goes away; nothing else moves them.
 */
import { describe, expect, it } from "vitest";
import { fingerprintOf, targetingsSnapshot } from "../../src/plan/saved/fingerprint.js";

const known = { venue_type_targeting_option: { venue_type_ids: ["12"] } };

describe("the fingerprint of a live targeting list", () => {
  it("is the normalized known members alone when the list holds nothing unknown", () => {
    expect(targetingsSnapshot([known])).toEqual([
      { venue_type_targeting_option: { venue_type_ids: ["12"], exclude: false } },
    ]);
  });

  it("changes when a member doohctl does not know appears, though the known members are the same", () => {
    const before = fingerprintOf("targetings", "5001", targetingsSnapshot([known]));
    const after = fingerprintOf(
      "targetings",
      "5001",
      targetingsSnapshot([{ ...known, unknown_members: ["frequency_cap_option"] }]),
    );
    expect(after.sha256).not.toBe(before.sha256);
    expect(after.snapshot).toMatchObject({ unknown_members: ["frequency_cap_option"] });
  });
});
