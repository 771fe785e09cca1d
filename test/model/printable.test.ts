import { describe, expect, it } from "vitest";
import { printable } from "../../src/model/printable.js";

describe("printable", () => {
  it("leaves ordinary text, accents and joined emoji as they are", () => {
    for (const text of ["Airports Q4", "Café Zürich", "東京駅", "Team 👩‍💻", ""])
      expect(printable(text)).toBe(text);
  });

  it("shows control, bidi and separator characters as escapes", () => {
    expect(printable("a\u001b[31mb")).toBe("a\\u001b[31mb");
    expect(printable("one\ntwo\rthree\tfour")).toBe("one\\ntwo\\rthree\\tfour");
    expect(printable("x\u202ey\u200bz\u2028")).toBe("x\\u202ey\\u200bz\\u2028");
    expect(printable("\u0085\u009b")).toBe("\\u0085\\u009b");
    expect(printable("tag\u{e0041}")).toBe("tag\\u{e0041}");
  });

  it("gives the same answer on every call (no state left between calls)", () => {
    expect([printable("a\u0007"), printable("a\u0007"), printable("b")]).toEqual([
      "a\\u0007",
      "a\\u0007",
      "b",
    ]);
  });
});
