import { describe, expect, it } from "vitest";
import { Placeholder } from "../../src/plan/changes/placeholder.js";

describe("Placeholder: the one home of <new:cN>", () => {
  it("makes and recognizes the placeholder of a create change", () => {
    const p = Placeholder.make("c7");
    expect(p).toBe("<new:c7>");
    expect(Placeholder.within(`/api/dsp/v1/campaigns/${p}/targetings`)).toBe(true);
    expect(Placeholder.within("/api/dsp/v1/campaigns/5001/targetings")).toBe(false);
  });

  it("resolves every placeholder in a text, and asks what to do with an unknown one", () => {
    const ids = new Map([["c1", "9001"]]);
    const text = `${Placeholder.make("c1")},${Placeholder.make("c2")}`;
    expect(
      Placeholder.resolve(
        text,
        (c) => ids.get(c),
        (p) => p,
      ),
    ).toBe("9001,<new:c2>");
    expect(() =>
      Placeholder.resolve(
        text,
        (c) => ids.get(c),
        (p) => {
          throw new Error(`unknown ${p}`);
        },
      ),
    ).toThrow("unknown <new:c2>");
  });
});
