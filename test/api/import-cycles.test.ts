import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const API = join(ROOT, "src/api");

/** Each module of src/api and the src/api modules it imports, `import type` included. */
function importGraph(): Map<string, string[]> {
  const files = readdirSync(API, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(API, file), "utf8");
    const targets = [...text.matchAll(/^(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"/gms)]
      .map((m) => relative(API, normalize(join(dirname(join(API, file)), m[1]!))).replace(/\.js$/, ".ts"))
      .filter((target) => !target.startsWith(".."));
    graph.set(file, targets);
  }
  return graph;
}

/** Every cycle found by a depth-first walk, as the list of modules it goes through. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") found.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe("src/api imports", () => {
  it("reads the imports of the modules (the walk below sees what it should)", () => {
    const graph = importGraph();
    expect(graph.get("readers.ts")).toContain("types.ts");
    expect(
      cycles(
        new Map([
          ["a.ts", ["b.ts"]],
          ["b.ts", ["a.ts"]],
        ]),
      ),
    ).toEqual([["a.ts", "b.ts", "a.ts"]]);
  });

  // Type-only cycles count too (types.ts -> readers.ts -> types.ts would be one): an
  // interface lives where no import comes back (DspReaders in types.ts, TlsSeen in
  // login-seen.ts).
  it("form no cycle, not even through `import type`", () => {
    expect(cycles(importGraph())).toEqual([]);
  });
});
