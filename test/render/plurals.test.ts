import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderText } from "../../src/render/text.js";
import { desiredState, liveState } from "../helpers/builders.js";
import { markdownOf, plan } from "../helpers/plans.js";

const SRC = join(import.meta.dirname, "..", "..", "src");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("counts in messages", () => {
  it("no message says 'N thing(s)': every count picks its singular or plural", () => {
    const offenders = sources(SRC).flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .map((line, i) => ({ at: `${file.slice(SRC.length + 1)}:${i + 1}`, line }))
        // Comments may say "limit(s)"; what is printed may not.
        .filter(({ line }) => !/^\s*(\*|\/\/|\/\*\*)/.test(line))
        .filter(({ line }) => /\b[a-z]+\(s\)/.test(line.replace(/http\(s\)/g, ""))),
    );
    expect(offenders.map((o) => o.at)).toEqual([]);
  });

  it("a plan held by a running apply says '1 campaign paused', in text and Markdown", () => {
    const held = {
      ...plan(desiredState([]), liveState({ insertionOrders: [] })),
      findings: [{ code: "DOOH203", severity: "warning" as const, message: "paused by a running apply" }],
    };
    const text = renderText(held, { colour: false });
    expect(text).toContain("no changes to send now; 1 campaign paused by a running apply (DOOH203)");
    expect(markdownOf(held)).toContain("1 campaign paused by a running apply");
  });
});
