import { describe, expect, it } from "vitest";
import { REDACTED, Scrubber } from "../../src/api/scrub.js";

describe("Scrubber", () => {
  it("replaces a secret as sent, JSON-escaped once or twice, and URL-encoded", () => {
    const secret = 'p a"ss';
    const scrubber = new Scrubber([secret]);
    const echoed = [
      secret,
      JSON.stringify(secret),
      JSON.stringify(JSON.stringify(secret)),
      encodeURIComponent(secret),
    ];
    for (const text of echoed) expect(scrubber.text(`<${text}>`)).not.toContain("a\\");
    expect(scrubber.text(`x ${secret} y`)).toBe(`x ${REDACTED} y`);
    expect(scrubber.text(`${encodeURIComponent(secret)}`)).toBe(REDACTED);
  });

  it("learns tokens as they come, and scrubs field names and messages of data", () => {
    const scrubber = new Scrubber(["", "pw"]);
    expect(scrubber.text("tok123")).toBe("tok123");
    scrubber.add("tok123");
    expect(scrubber.fields([{ field: "pw", messages: ["tr-production=tok123"] }])).toEqual([
      { field: REDACTED, messages: [`tr-production=${REDACTED}`] },
    ]);
  });

  it("replaces a secret that contains another whole", () => {
    const scrubber = new Scrubber(["abc", "abcdef"]);
    expect(scrubber.text("abcdef")).toBe(REDACTED);
  });
});
