/**
 * Each finding code has one emitting module, the one its FINDING_CATALOGUE row names
 * (src/plan/finding-catalogue.ts). A finding is emitted where `finding(CODE, ...)` is called: the one
 * constructor, imported from finding-catalogue.ts, with its code written out. Reading a code
 * (`f.code === "DOOH203"`), listing it (an analyzer's `codes`) or naming it in a message, a
 * comment or a document emits nothing. A finding built by hand (`{ code, severity, ... }`) or
 * made with a code computed at run time cannot be traced, so either fails here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { FINDING_CATALOGUE, type FindingCode } from "../../src/plan/finding-catalogue.js";

const root = join(import.meta.dirname, "..", "..");
const CODE = /^DOOH\d{3}$/;

interface Scan {
  /** Code -> the modules that emit it. */
  emitted: Map<string, Set<string>>;
  /** `file:line: what`, for each finding made in a way the scan cannot trace. */
  untraceable: string[];
}

/** The local names under which a module imports `finding` from finding-catalogue.ts. */
function constructorNames(source: ts.SourceFile, path: string): Set<string> {
  const names = new Set<string>();
  if (path === "src/plan/finding-catalogue.ts") names.add("finding");
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (!/(^|\/)finding-catalogue\.js$/.test(statement.moduleSpecifier.text)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const element of bindings.elements) {
      if ((element.propertyName ?? element.name).text === "finding") names.add(element.name.text);
    }
  }
  return names;
}

function literalText(node: ts.Node | undefined): string | undefined {
  return node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
    ? node.text
    : undefined;
}

function propertyName(property: ts.ObjectLiteralElementLike): string | undefined {
  const name = property.name;
  return name && (ts.isIdentifier(name) || ts.isStringLiteral(name)) ? name.text : undefined;
}

/** Scans one module's text into `scan`. */
function scanModule(path: string, text: string, scan: Scan): void {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const constructors = constructorNames(source, path);
  const line = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      constructors.has(node.expression.text)
    ) {
      const code = literalText(node.arguments[0]);
      if (code === undefined) {
        scan.untraceable.push(`${path}:${line(node)}: finding() with a code computed at run time`);
      } else {
        const modules = scan.emitted.get(code) ?? new Set<string>();
        modules.add(path);
        scan.emitted.set(code, modules);
      }
    }
    if (ts.isObjectLiteralExpression(node) && path !== "src/plan/finding-catalogue.ts") {
      const names = node.properties.map(propertyName);
      const codeLiteral = node.properties.some(
        (p) =>
          propertyName(p) === "code" &&
          ts.isPropertyAssignment(p) &&
          CODE.test(literalText(p.initializer) ?? ""),
      );
      if (codeLiteral || (names.includes("code") && names.includes("severity"))) {
        scan.untraceable.push(`${path}:${line(node)}: a finding built by hand, not by finding()`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    // A generated validator holds its schema as data, the plan's finding shape among it
    // (scripts/gen-validators.ts): it builds no finding.
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".generated.ts") ? [path] : [];
  });
}

function scan(modules: Record<string, string>): Scan {
  const result: Scan = { emitted: new Map(), untraceable: [] };
  for (const [path, text] of Object.entries(modules)) scanModule(path, text, result);
  return result;
}

function scanSrc(): Scan {
  const files = sourceFiles("src");
  return scan(
    Object.fromEntries(
      files.map((f) => [relative(root, join(root, f)), readFileSync(join(root, f), "utf8")]),
    ),
  );
}

const CODES = Object.keys(FINDING_CATALOGUE) as FindingCode[];

describe("each finding code has one emitting module", () => {
  const src = scanSrc();

  it("finds every finding of src/ made by finding() with its code written out", () => {
    expect(src.untraceable).toEqual([]);
  });

  it("emits each catalogued code from the module its catalogue row names, and from no other", () => {
    const wrong = CODES.flatMap((code) => {
      const emitters = [...(src.emitted.get(code) ?? [])].sort();
      const named = FINDING_CATALOGUE[code].module;
      return emitters.length === 1 && emitters[0] === named
        ? []
        : [`${code}: catalogue ${named}, emitted by ${emitters.join(", ") || "nothing"}`];
    });
    expect(wrong).toEqual([]);
  });

  it("emits no code the catalogue does not list", () => {
    expect([...src.emitted.keys()].filter((code) => !CODES.includes(code as FindingCode))).toEqual([]);
  });

  it("tells an emission from a mention: a call under another name counts, a message, a comparison or a list does not", () => {
    const found = scan({
      "src/plan/stray.ts": [
        'import { finding as make } from "./finding-catalogue.js";',
        "// DOOH001 in a comment",
        'const a = make("DOOH001", "the insertion order DOOH002 names");',
        'const b = (f: { code: string }) => f.code === "DOOH003";',
        'const analyzer = { name: "x", codes: ["DOOH004"], run: () => [] };',
      ].join("\n"),
      "src/cli/stray.ts": [
        'import { finding } from "./finding-catalogue.js";',
        'const code = Math.random() > 0.5 ? "DOOH005" : "DOOH006";',
        "finding(code, 'message');",
        'const byHand = { code: "DOOH007", message: "m" };',
        'const shaped = { code, severity: "error", message: "m" };',
      ].join("\n"),
    });
    expect(Object.fromEntries([...found.emitted].map(([code, files]) => [code, [...files]]))).toEqual({
      DOOH001: ["src/plan/stray.ts"],
    });
    expect(found.untraceable).toEqual([
      "src/cli/stray.ts:3: finding() with a code computed at run time",
      "src/cli/stray.ts:4: a finding built by hand, not by finding()",
      "src/cli/stray.ts:5: a finding built by hand, not by finding()",
    ]);
  });
});
