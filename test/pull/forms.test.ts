/** The author's form of a pulled value (src/pull/forms.ts), and the diff made from splices. */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { moneyText, scalarText, timeText } from "../../src/pull/forms.js";
import { unifiedDiff } from "../../src/pull/line-diff.js";
import { PullFileError, sha256, writeIfUnchanged } from "../../src/pull/write.js";
import { usdParts } from "../helpers/money.js";

describe("a pulled value in the author's form", () => {
  it("writes money with at least the author's decimals, and two when cents appear", () => {
    expect(moneyText(usdParts("16"), "15 USD")).toBe("16 USD");
    expect(moneyText(usdParts("15", 500_000_000), "15 USD")).toBe("15.50 USD");
    expect(moneyText(usdParts("12", 750_000_000), "12.50 USD")).toBe("12.75 USD");
    expect(moneyText(usdParts("12", 123_456_789), "12.5 USD")).toBe("12.123456789 USD");
    expect(moneyText(usdParts("13"), "12.000 USD")).toBe("13.000 USD");
  });

  it("writes the live instant in the author's offset", () => {
    expect(timeText("2026-12-31T23:00:00Z", "2027-01-01T01:00:00+01:00")).toBe("2027-01-01T00:00:00+01:00");
    expect(timeText("2027-01-01T12:00:00Z", "2027-01-01T00:00:00-05:30")).toBe("2027-01-01T06:30:00-05:30");
    expect(timeText("2027-01-01T12:00:00.250Z", "2027-01-01T00:00:00Z")).toBe("2027-01-01T12:00:00.250Z");
  });

  it("keeps a scalar's quoting, and quotes a plain string only when it would read back otherwise", () => {
    expect(scalarText("PO-2", "PLAIN")).toBe("PO-2");
    expect(scalarText("123", "PLAIN")).toBe('"123"');
    expect(scalarText("true", "PLAIN")).toBe('"true"');
    expect(scalarText("a: b", "PLAIN")).toBe('"a: b"');
    expect(scalarText("9001", "QUOTE_SINGLE")).toBe("'9001'");
    expect(scalarText("it's", "QUOTE_SINGLE")).toBe("'it''s'");
    expect(scalarText(null, "PLAIN")).toBe("null");
  });
});

describe("the unified diff of pull's splices", () => {
  it("numbers the new side after earlier hunks that added lines", () => {
    const text = `${Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;
    const at = (line: number) => text.indexOf(`line ${line}\n`);
    const diff = unifiedDiff("f.yaml", text, [
      { start: at(3), end: at(3), text: "new a\nnew b\n" },
      { start: at(15) + 5, end: at(15) + 7, text: "fifteen" },
    ]);
    expect(diff).toBe(
      [
        "--- a/f.yaml",
        "+++ b/f.yaml",
        "@@ -1,5 +1,7 @@",
        " line 1",
        " line 2",
        "+new a",
        "+new b",
        " line 3",
        " line 4",
        " line 5",
        "@@ -12,7 +14,7 @@",
        " line 12",
        " line 13",
        " line 14",
        "-line 15",
        "+line fifteen",
        " line 16",
        " line 17",
        " line 18",
        "",
      ].join("\n"),
    );
  });
});

describe("writing a pulled file", () => {
  const MAX = 1024;
  it("refuses a file that changed since pull read it, and a link, and writes nothing", () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-pull-write-"));
    try {
      const path = join(dir, "c.yaml");
      writeFileSync(path, "a: 1\n");
      const read = sha256("a: 1\n");
      writeFileSync(path, "a: 2\n"); // someone saved the file meanwhile
      expect(() => writeIfUnchanged(path, "c.yaml", "a: 3\n", read, MAX)).toThrow(
        /changed since pull read it/,
      );
      expect(readFileSync(path, "utf8")).toBe("a: 2\n");
      symlinkSync(path, join(dir, "link.yaml"));
      expect(() =>
        writeIfUnchanged(join(dir, "link.yaml"), "link.yaml", "a: 3\n", sha256("a: 2\n"), MAX),
      ).toThrow(PullFileError);
      expect(readFileSync(path, "utf8")).toBe("a: 2\n");
      // Larger than the most a config file is read: not the file pull read, refused unread
      // (its digest would match here).
      expect(() => writeIfUnchanged(path, "c.yaml", "a: 3\n", sha256("a: 2\n"), 4)).toThrow(
        /changed since pull read it/,
      );
      expect(readFileSync(path, "utf8")).toBe("a: 2\n");
      writeIfUnchanged(path, "c.yaml", "a: 3\n", sha256("a: 2\n"), MAX);
      expect(readFileSync(path, "utf8")).toBe("a: 3\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
