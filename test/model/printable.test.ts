import { describe, expect, it } from "vitest";
import { acts, own, printable, terminalText } from "../../src/model/printable.js";

describe("printable", () => {
  it("leaves ordinary text, accents and emoji as they are", () => {
    for (const text of ["Airports Q4", "Café Zürich", "東京駅", "Team 👩 💻", ""]) {
      expect(printable(text)).toBe(text);
      expect(acts(text)).toBe(false);
    }
  });

  it("shows control, bidi, zero-width and separator characters as escapes", () => {
    expect(printable("a\u001b[31mb")).toBe("a\\u001b[31mb");
    expect(printable("one\ntwo\rthree\tfour")).toBe("one\\ntwo\\rthree\\tfour");
    expect(printable("x\u202ey\u200bz\u2028")).toBe("x\\u202ey\\u200bz\\u2028");
    expect(printable("\u0085\u009b")).toBe("\\u0085\\u009b");
    // A joiner too: it can hide text as well as join emoji.
    expect(printable("👩\u200d💻")).toBe("👩\\u200d💻");
    // Beyond U+FFFF as its UTF-16 pair: JSON's own escape.
    expect(printable("tag\u{e0041}")).toBe("tag\\udb40\\udc41");
    expect(acts("a\nb")).toBe(true);
  });

  it("gives the same answer on every call (no state left between calls)", () => {
    expect([printable("a\u0007"), printable("a\u0007"), printable("b")]).toEqual([
      "a\\u0007",
      "a\\u0007",
      "b",
    ]);
  });
});

describe("terminalText: the boundary", () => {
  const HOSTILE =
    "\u001b[2J\u001b]52;c;ZXZpbA==\u0007\u001b]8;;https://x\u0007\rCR\u2028\u202e\u200b\u200d\u009b\u{e0041}";

  it("shows every acting character but a line feed, whoever wrote it", () => {
    expect(terminalText(`a ${HOSTILE}\nb`)).toBe(
      "a \\u001b[2J\\u001b]52;c;ZXZpbA==\\u0007\\u001b]8;;https://x\\u0007\\rCR\\u2028\\u202e\\u200b\\u200d\\u009b\\udb40\\udc41\nb",
    );
    expect(terminalText("plain\n")).toBe("plain\n");
  });

  it("lets doohctl's own sequences act, and text cannot forge them", () => {
    const red = own("\u001b[31m");
    expect(red).not.toMatch(/[\p{Cc}]/u);
    expect(terminalText(`${red}x${own("\r\u001b[K")}`)).toBe("\u001b[31mx\r\u001b[K");
    // What looks like a mark without this process's token is text.
    expect(terminalText("own0123;\u001b")).toBe("own0123;\\u001b");
  });

  it("keeps a JSON document the same document: its escapes are JSON's", () => {
    const value = { name: `n${HOSTILE}`, list: ["\u2029", "\u007f"] };
    const shown = terminalText(JSON.stringify(value, null, 2));
    expect(/(?!\n)[\p{Cc}\p{Cf}\u2028\u2029]/u.test(shown)).toBe(false);
    expect(JSON.parse(shown)).toEqual(value);
  });
});
