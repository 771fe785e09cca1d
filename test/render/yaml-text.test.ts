import { describe, expect, it } from "vitest";
import { Document, parse } from "yaml";
import { yamlDocument, yamlScalar } from "../../src/render/yaml-text.js";

/** YAML's printable set, and no line separator, NEL or format character: what a file holds raw. */
const RAW = /(?!\n)[\p{Cc}\p{Cf}\u2028\u2029]/u;

const HOSTILE = [
  "PO\u0000NUL",
  "\u001b]0;title\u0007",
  "cr\rlf\n",
  "ls\u2028ps\u2029nel\u0085",
  "del\u007f c1\u009b",
  "bidi\u202eexe",
  "tag\u{e0041}",
  "bom\ufeff",
  "zwj\u200d zwsp\u200b",
];

describe("yamlScalar", () => {
  it.each(["PLAIN", "QUOTE_SINGLE", "QUOTE_DOUBLE"] as const)(
    "writes a value with control characters double-quoted and escaped, from %s",
    (style) => {
      for (const value of HOSTILE) {
        const text = yamlScalar(value, style);
        expect(text.startsWith('"'), text).toBe(true);
        expect(RAW.exec(text)?.[0]).toBeUndefined();
        expect(parse(`k: ${text}\n`).k).toBe(value);
        expect(parse(`k: [${text}]\n`).k).toEqual([value]);
      }
    },
  );

  it("keeps the author's style for ordinary text", () => {
    expect(yamlScalar("PO-1", "PLAIN")).toBe("PO-1");
    expect(yamlScalar("it's", "QUOTE_SINGLE")).toBe("'it''s'");
    expect(yamlScalar("PO-1", "QUOTE_DOUBLE")).toBe('"PO-1"');
    expect(yamlScalar("Team 👩💻", "PLAIN")).toBe("Team 👩💻");
  });
});

describe("yamlDocument", () => {
  it("escapes every value that needs it and reads back the same document", () => {
    const doc = new Document({ names: HOSTILE, plain: "Malls" });
    const text = yamlDocument(doc, { lineWidth: 0 });
    expect(RAW.exec(text)?.[0]).toBeUndefined();
    expect(parse(text)).toEqual({ names: HOSTILE, plain: "Malls" });
    expect(text).toContain("plain: Malls\n");
  });

  it("writes a `<<` key quoted, so a reader with merge keys on reads it as a key", () => {
    const text = yamlDocument(new Document({ pacing: { "<<": "*alias" } }));
    expect(text).toBe('pacing:\n  "<<": "*alias"\n');
    expect(parse(text, { merge: true })).toEqual({ pacing: { "<<": "*alias" } });
  });

  it("refuses a document whose text would not read back as its values", () => {
    const doc = new Document({ a: 1 });
    doc.commentBefore = "\u2028a: 2"; // a comment is not escaped: the caller shows DSP text in it printable
    expect(() => yamlDocument(doc)).toThrow(/would not read back/);
  });
});
