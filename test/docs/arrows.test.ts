/**
 * ARCHITECTURE.md's arrows (Layers and their arrows) are the imports of src, both ways: every
 * import from one folder of src into another is an arrow the document states, in the form it
 * states (`types`: `import type` only, the values after `and` aside; `only` and `not`: the
 * files named), every arrow it states is an import, values flow only down its list, and Biome
 * refuses, from every directory of src, an import of each folder a line leaves out.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, normalize, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const SRC = join(root, "src");
const SECTION = "ARCHITECTURE.md, Layers and their arrows";

interface Arrow {
  to: string;
  /** `import type` only, but for `values`. */
  types: boolean;
  values: string[];
  /** The files of `to` an import may name (`only`), or may not (`not`); paths inside `to`. */
  only?: string[];
  not?: string[];
}

interface Line {
  from: string;
  arrows: Arrow[];
}

function parseArrow(line: string, text: string): Arrow {
  const m = /^(\w+)( types)?(?: \((only|not|and) ([^)]+)\))?$/.exec(text);
  if (!m)
    throw new Error(
      `${SECTION}: "${text}" in "${line}" is not "folder", "folder types" or either with (only|not|and names)`,
    );
  const names = m[4]?.split(/,\s*/) ?? [];
  return {
    to: m[1]!,
    types: m[2] !== undefined,
    values: m[3] === "and" ? names : [],
    ...(m[3] === "only" ? { only: names } : {}),
    ...(m[3] === "not" ? { not: names } : {}),
  };
}

/** The lines of the section's diagram, top to bottom. */
function statedArrows(doc: string): Line[] {
  const section = doc.split(/^### Layers and their arrows$/m)[1] ?? "";
  const block = /^```\n([\s\S]*?)^```$/m.exec(section)?.[1] ?? "";
  return block
    .trimEnd()
    .split("\n")
    .map((line) => {
      const m = /^(\w+)\s+──▶ (.+)$/.exec(line);
      if (!m) throw new Error(`${SECTION}: "${line}" is not "folder ──▶ folders"`);
      const arrows = m[2] === "nothing" ? [] : m[2]!.split(/,\s*(?![^(]*\))/).map((t) => parseArrow(line, t));
      return { from: m[1]!, arrows };
    });
}

/** What an import or re-export names: its module, and the values it takes (none: types only). */
interface Taken {
  specifier: string;
  values: string[];
  line: number;
}

function declaredValues(node: ts.ImportDeclaration | ts.ExportDeclaration): string[] {
  const name = (e: ts.ImportSpecifier | ts.ExportSpecifier) => (e.propertyName ?? e.name).text;
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (clause === undefined) return ["*"];
    if (clause.isTypeOnly) return [];
    const bindings = clause.namedBindings;
    return [
      ...(clause.name ? ["default"] : []),
      ...(bindings && ts.isNamespaceImport(bindings) ? ["*"] : []),
      ...(bindings && ts.isNamedImports(bindings)
        ? bindings.elements.filter((e) => !e.isTypeOnly).map(name)
        : []),
    ];
  }
  if (node.isTypeOnly) return [];
  const clause = node.exportClause;
  if (clause === undefined || ts.isNamespaceExport(clause)) return ["*"];
  return clause.elements.filter((e) => !e.isTypeOnly).map(name);
}

/** Every module a file's text names: imports, re-exports, `import()` and `import("...")` types. */
function taken(text: string): Taken[] {
  const source = ts.createSourceFile("x.ts", text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: Taken[] = [];
  const add = (literal: ts.Node | undefined, values: string[]) => {
    if (literal === undefined || !ts.isStringLiteral(literal)) return;
    const line = source.getLineAndCharacterOfPosition(literal.getStart(source)).line + 1;
    found.push({ specifier: literal.text, values, line });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, declaredValues(node));
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], ["*"]);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, []);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** An import from one folder of src into another. */
interface Crossing {
  at: string;
  from: string;
  to: string;
  /** The module's path inside `to`, as a .ts file. */
  file: string;
  values: string[];
}

function crossings(): Crossing[] {
  const files = readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
  return files.flatMap((file) =>
    taken(readFileSync(join(SRC, file), "utf8")).flatMap(({ specifier, values, line }) => {
      if (!specifier.startsWith(".")) return [];
      const target = relative(SRC, normalize(join(SRC, dirname(file), specifier)));
      const [from, to] = [file.split("/")[0]!, target.split("/")[0]!];
      if (from === to || target.startsWith("..")) return [];
      const inside = target.slice(to.length + 1).replace(/\.js$/, ".ts");
      return [{ at: `src/${file}:${line}`, from, to, file: inside, values }];
    }),
  );
}

const folders = readdirSync(SRC, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();
const lines = statedArrows(readFileSync(join(root, "ARCHITECTURE.md"), "utf8"));
const arrowOf = (from: string, to: string) =>
  lines.find((l) => l.from === from)?.arrows.find((a) => a.to === to);

/** What a crossing breaks of its arrow, if anything. */
function breach(c: Crossing): string | undefined {
  const arrow = arrowOf(c.from, c.to);
  const where = `${c.at} imports src/${c.to}/${c.file}`;
  if (arrow === undefined) return `${where}: ARCHITECTURE.md states no arrow ${c.from} ──▶ ${c.to}`;
  const values = arrow.types ? c.values.filter((v) => !arrow.values.includes(v)) : [];
  if (values.length > 0) return `${where}: values ${values.join(", ")}, but ${c.from} ──▶ ${c.to} is types`;
  if (arrow.only && !arrow.only.includes(c.file))
    return `${where}: the arrow is only ${arrow.only.join(", ")}`;
  if (arrow.not?.includes(c.file)) return `${where}: the arrow is not ${c.file}`;
  return undefined;
}

describe("ARCHITECTURE.md's arrows are the imports of src", () => {
  const all = crossings();

  it("reads values and types apart in imports and re-exports", () => {
    const text = [
      'import { deactivates } from "../plan/changes.js";',
      'import type { Plan } from "../plan/types.js";',
      'import { type Change, PHASES, type Phase } from "../plan/types.js";',
      'import {\n  serializePlan,\n  type Plan as P,\n} from "../plan/file.js";',
      'export { planSummary } from "../plan/summary.js";',
      'export type { Finding } from "../plan/findings.js";',
      'import * as plan from "../plan/planner.js";',
      'type Read = typeof import("../api/read.js");',
      'const late = await import("../apply/late.js");',
    ].join("\n");
    expect(taken(text).map((t) => `${t.line} ${t.specifier}: ${t.values.join(" ")}`)).toEqual([
      "1 ../plan/changes.js: deactivates",
      "2 ../plan/types.js: ",
      "3 ../plan/types.js: PHASES",
      "7 ../plan/file.js: serializePlan",
      "8 ../plan/summary.js: planSummary",
      "9 ../plan/findings.js: ",
      "10 ../plan/planner.js: *",
      "11 ../api/read.js: ",
      "12 ../apply/late.js: *",
    ]);
  });

  it("states one line for each folder of src, in a form it reads", () => {
    expect(folders.length).toBeGreaterThan(5);
    expect(lines.map((l) => l.from).sort()).toEqual(folders);
    const unknown = lines.flatMap((l) => l.arrows.filter((a) => !folders.includes(a.to)).map((a) => a.to));
    expect(unknown).toEqual([]);
  });

  it("states every import between folders, in its form", () => {
    expect(all.length).toBeGreaterThan(100);
    expect(all.flatMap((c) => breach(c) ?? [])).toEqual([]);
  });

  it("states no arrow that no import draws", () => {
    const drawn = new Set(all.map((c) => `${c.from} ──▶ ${c.to}`));
    const stated = lines.flatMap((l) => l.arrows.map((a) => `${l.from} ──▶ ${a.to}`));
    expect(stated.filter((s) => !drawn.has(s))).toEqual([]);
  });

  it("lets values flow only down the list: an arrow up carries types", () => {
    const index = (folder: string) => lines.findIndex((l) => l.from === folder);
    const up = lines.flatMap((l) =>
      l.arrows
        .filter((a) => (!a.types || a.values.length > 0) && index(a.to) < index(l.from))
        .map((a) => `${l.from} ──▶ ${a.to}`),
    );
    expect(up).toEqual([]);
  });
});

/** A line of a probe file, and the rule that must refuse it (none: Biome lets it pass). */
interface ProbeLine {
  text: string;
  refusedBy?: string;
}

/**
 * The probe file of one directory of src: a line importing each other folder (and each file an
 * arrow names), and one reading `process.env`.
 */
function probeOf(dir: string): ProbeLine[] {
  const from = dir.split("/")[0]!;
  const up = "../".repeat(dir.split("/").length);
  const imports: { spec: string; refused: boolean }[] = [];
  for (const to of folders.filter((f) => f !== from)) {
    const arrow = arrowOf(from, to);
    imports.push({ spec: `${up}${to}/target.ts`, refused: arrow === undefined || arrow.only !== undefined });
    for (const file of arrow?.only ?? []) imports.push({ spec: `${up}${to}/${file}`, refused: false });
    for (const file of arrow?.not ?? []) imports.push({ spec: `${up}${to}/${file}`, refused: true });
  }
  const restricted = "lint/style/noRestrictedImports";
  return [
    ...imports.map(({ spec, refused }, i) => ({
      text: `import { probe as p${i} } from "${spec.replace(/\.ts$/, ".js")}";`,
      ...(refused ? { refusedBy: restricted } : {}),
    })),
    { text: `export const probes = [${imports.map((_, i) => `p${i}`).join(", ")}];` },
    {
      text: "export const home = process.env.HOME;",
      ...(from === "cli" ? {} : { refusedBy: "lint/style/noProcessEnv" }),
    },
  ];
}

interface Diagnostic {
  category: string;
  message: string;
  location: { path: string; start: { line: number } };
}

describe("Biome holds every folder of src to its line", () => {
  it("refuses, from every directory, each import its folder's line leaves out, citing ARCHITECTURE.md", () => {
    const dirs = readdirSync(SRC, { recursive: true, withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => relative(SRC, join(e.parentPath, e.name)));
    expect(dirs).toContain("pull");
    const copy = mkdtempSync(join(tmpdir(), "doohctl-arrows-"));
    copyFileSync(join(root, "biome.json"), join(copy, "biome.json"));
    const probes = new Map(dirs.map((dir) => [`src/${dir}/probe.ts`, probeOf(dir)]));
    for (const [path, lines] of probes) {
      mkdirSync(dirname(join(copy, path)), { recursive: true });
      writeFileSync(join(copy, path), `${lines.map((l) => l.text).join("\n")}\n`);
    }
    const run = spawnSync(
      join(root, "node_modules", ".bin", "biome"),
      ["lint", "--reporter=json", "--max-diagnostics=none", "src"],
      { cwd: copy, encoding: "utf8" },
    );
    const { diagnostics } = JSON.parse(run.stdout) as { diagnostics: Diagnostic[] };
    const found = diagnostics.map((d) => {
      const line = probes.get(d.location.path)?.[d.location.start.line - 1]?.text;
      return `${d.location.path}: ${line ?? `line ${d.location.start.line}`} (${d.category})`;
    });
    const expected = [...probes].flatMap(([path, lines]) =>
      lines.flatMap((l) => (l.refusedBy ? [`${path}: ${l.text} (${l.refusedBy})`] : [])),
    );
    expect(found.sort()).toEqual(expected.sort());
    const uncited = diagnostics
      .filter((d) => d.category === "lint/style/noRestrictedImports")
      .filter((d) => !d.message.includes("ARCHITECTURE.md#layers-and-their-arrows"));
    expect(uncited).toEqual([]);
  });
});
