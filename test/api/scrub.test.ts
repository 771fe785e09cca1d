import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REDACTED, Scrubber } from "../../src/model/scrub.js";
import { echoForms, leaks } from "../helpers/echoes.js";

const PASSWORD = `Pa55 "wörd" & <é/😀>+%'\\`;
const EMAIL = "echo@doohctl.test";

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

describe("every form a server may echo", () => {
  const scrubber = new Scrubber([PASSWORD], { email: EMAIL });
  for (const [name, form] of Object.entries(echoForms(PASSWORD, EMAIL))) {
    it(`scrubs the password ${name}, and leaves the text around it`, () => {
      const scrubbed = scrubber.text(`before ${form} after`);
      expect(scrubbed).toContain(REDACTED);
      expect(scrubbed).not.toContain(form);
      expect(leaks(scrubbed, PASSWORD)).toEqual([]);
      expect(scrubbed.startsWith("before ")).toBe(true);
      expect(scrubbed.endsWith(" after") || name.startsWith("base64")).toBe(true);
    });
  }

  it("leaves text without a secret as it is, escapes and all", () => {
    const text = `{"message":"Invalid \\"name\\" &amp; %41 \\u0041 ${Buffer.from("other").toString("base64")}"}`;
    expect(scrubber.text(text)).toBe(text);
  });

  it("scrubs before it cuts an excerpt: no half of a secret at the cut", () => {
    const text = `${"x".repeat(190)}${PASSWORD} and more`;
    expect(scrubber.excerpt(text, 200)).toBe(`${"x".repeat(190)}${REDACTED}`);
    expect(scrubber.excerpt(`${"x".repeat(195)}${PASSWORD}`, 200)).toBe(`${"x".repeat(195)}[reda`);
  });

  it("scrubs any password in every form (property)", () => {
    const forms = (password: string) => Object.entries(echoForms(password, EMAIL));
    fc.assert(
      fc.property(fc.string({ minLength: 8, maxLength: 24, unit: "grapheme" }), (password) => {
        fc.pre(!REDACTED.toLowerCase().includes(password.toLowerCase()));
        const s = new Scrubber([password], { email: EMAIL });
        for (const [name, form] of forms(password)) {
          const scrubbed = s.text(`<${form}>`);
          expect(leaks(scrubbed, password), `${name}: ${scrubbed}`).toEqual([]);
        }
      }),
      { numRuns: 25 },
    );
  });
});
