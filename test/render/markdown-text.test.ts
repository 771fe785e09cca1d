import { JSDOM } from "jsdom";
import { marked } from "marked";
import { describe, expect, it } from "vitest";
import { cell, code } from "../../src/render/markdown-text.js";

/** The HTML GitHub Flavored Markdown makes of one table row holding `text`. */
function rendered(text: string) {
  const html = marked.parse(`| a |\n|---|\n| ${text} |\n`, { gfm: true, async: false });
  return new JSDOM(html).window.document.body;
}

describe("cell: DSP text in a Markdown table renders as the text it is", () => {
  it.each([
    ["an image", "![img](https://x/y.png)"],
    ["a link", "[link](javascript:alert(1))"],
    ["a bare URL and www", "see https://evil.example and www.evil.example"],
    ["HTML", "<img src=x onerror=alert(1)>"],
    ["a closing details tag", "</details>"],
    ["emphasis and strike", "*bold* _it_ ~~gone~~"],
    ["a code span", "tick ` and ``` fence"],
    ["a pipe", "pipe | cell"],
    ["a character reference", "&lt;b&gt; &#64;x"],
    ["a backslash", "C:\\temp\\"],
  ])("%s", (_, text) => {
    const body = rendered(cell(text));
    expect(body.querySelectorAll("td")).toHaveLength(1);
    expect(body.querySelector("td")?.children).toHaveLength(0);
    // A zero-width space only after what would start a reference (`&#64;` holds `#64`).
    expect(body.querySelector("td")?.textContent?.replace(/\u200b/g, "")).toBe(text);
  });

  it("keeps @ from starting a mention or an e-mail address", () => {
    const text = rendered(cell("ask @someone or a@b.example")).querySelector("td")?.textContent ?? "";
    expect(text).not.toMatch(/@[A-Za-z0-9]/);
    expect(text.replace(/\u200b/g, "")).toBe("ask @someone or a@b.example");
  });

  it("keeps #123, GH-123, owner/repo#123 and !123 from linking an issue or pull request", () => {
    const text = "fix #123, GH-45, gh-6, acme/web#7 and !8 (#9)";
    const source = cell(text);
    expect(source, "no raw zero-width space: a character reference").not.toMatch(/\u200b/);
    const shown = rendered(source).querySelector("td")?.textContent ?? "";
    expect(shown).not.toMatch(/[#!]\d|GH-\d/i);
    expect(shown.replace(/\u200b/g, "")).toBe(text);
    // What is no reference stays as written.
    expect(cell("C# and issue #x")).toBe("C# and issue #x");
  });

  it("shows control, bidi and separator characters as escapes, so no row is forged", () => {
    expect(rendered(cell("a\nb\u2028c\u202ed\u001b")).querySelector("td")?.textContent).toBe(
      "a\\nb\\u2028c\\u202ed\\u001b",
    );
  });
});

describe("code: a code span in a table cell", () => {
  it("holds a backtick and a pipe without ending the span or the cell", () => {
    const body = rendered(code("dir`|x", { inTable: true }));
    expect(body.querySelectorAll("td")).toHaveLength(1);
    expect(body.querySelector("td code")?.textContent).toBe("dir'|x");
  });
});
