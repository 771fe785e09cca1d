/**
 * The repository stands on its own (ARCHITECTURE.md): every Markdown file a comment, a lint
 * message, a user-facing message or a document cites must exist in it, and so must every
 * anchor it names. A citation of a document outside the repository, a renamed doc or a
 * dropped heading fails here, naming the citing file and line. ARCHITECTURE.md's files and
 * names in backticks must exist too (its arrows: arrows.test.ts).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");

/** Files whose text may cite a document: tracked and untracked, never ignored ones. */
function citingFiles(): string[] {
  const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  });
  return listed
    .split("\n")
    .filter((path) => /\.(ts|md|json|ya?ml|sh|mjs)$|^\.ci\/run$/.test(path))
    .filter((path) => existsSync(join(root, path)))
    .filter((path) => path !== "package-lock.json" && !path.startsWith("bench/results"));
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  const cached = anchorCache.get(file);
  if (cached) return cached;
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      const base = slug(heading[1]!);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const id of line.matchAll(/<a id="([^"]+)"><\/a>/g)) anchors.add(id[1]!);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

interface Citation {
  from: string;
  line: number;
  target: string;
  anchor: string | undefined;
}

/** `docs/safety.md`, `apply.md#interrupting` beside it, `ARCHITECTURE.md#layers-and-their-arrows`. */
const CITATION = /(?<![\w/.-])((?:\.{1,2}\/)*[\w.-]+(?:\/[\w.-]+)*\.md)(?:#([\w-]+))?/g;

/**
 * In a CI script or workflow, `plan.md` is more often a file the job writes than a document,
 * and in a test a golden file: there only a path into the repository's documents or a root
 * document counts as a citation.
 */
function cites(path: string, target: string): boolean {
  if (!/\.(ya?ml|sh)$/.test(path) && !path.startsWith("test/")) return true;
  return target.includes("docs/") || /^[A-Z]+\.md$/.test(target);
}

function citationsIn(path: string): Citation[] {
  const found: Citation[] = [];
  readFileSync(join(root, path), "utf8")
    .split("\n")
    .forEach((text, index) => {
      for (const match of text.matchAll(CITATION)) {
        // A URL names another site's file (a tag's raw file, a GitHub page): not ours to check.
        const before = text.slice(0, match.index);
        if (/https?:\/\/\S*$/.test(before) || !cites(path, match[1]!)) continue;
        // `docs/assumptions.md#g${n}` or `#g$1`: an anchor made at run time is checked where it is made.
        const dynamic = text.startsWith("$", match.index + match[0].length);
        found.push({
          from: path,
          line: index + 1,
          target: match[1]!,
          anchor: dynamic ? undefined : match[2],
        });
      }
    });
  return found;
}

/**
 * The file a citation means: relative to the citing file, else to the repository's root, else
 * among the documents (a generator writes links that docs/ will hold), else the path with its
 * leading `../` dropped (a script's path from where it is built, dist/scripts/).
 */
function resolveCitation(citation: Citation): string | undefined {
  const target = citation.target;
  const candidates = [
    join(root, dirname(citation.from), target),
    join(root, target),
    join(root, "docs", target),
    join(root, target.replace(/^(\.{1,2}\/)+/, "")),
  ];
  return candidates.map(normalize).find((file) => file.startsWith(root) && existsSync(file));
}

describe("citations of documents", () => {
  const citations = citingFiles().flatMap(citationsIn);

  it("finds the citations it checks (a scan that reads nothing would pass anything)", () => {
    expect(citations.length).toBeGreaterThan(50);
    expect(citations.some((c) => c.from.startsWith("src/") && c.target.endsWith("ARCHITECTURE.md"))).toBe(
      true,
    );
  });

  it("cites only files that exist in the repository", () => {
    const missing = citations
      .filter((citation) => resolveCitation(citation) === undefined)
      .map((c) => `${c.from}:${c.line} cites ${c.target}, which is not in the repository`);
    expect(missing).toEqual([]);
  });

  it("cites only anchors that exist in the cited file", () => {
    const missing = citations
      .filter((citation) => citation.anchor !== undefined)
      .flatMap((citation) => {
        const file = resolveCitation(citation);
        if (file === undefined || anchorsOf(file).has(citation.anchor!)) return [];
        return [
          `${citation.from}:${citation.line} cites ${relative(root, file)}#${citation.anchor}: no such anchor`,
        ];
      });
    expect(missing).toEqual([]);
  });

  // ARCHITECTURE.md: names in backticks are things a grep finds, its file paths files that exist.
  it("cites in ARCHITECTURE.md only files and names that exist", () => {
    const files = citingFiles();
    const code = files
      .filter((path) => !path.endsWith(".md"))
      .map((path) => readFileSync(join(root, path), "utf8"))
      .join("\n");
    const prose = readFileSync(join(root, "ARCHITECTURE.md"), "utf8").replace(/^```[\s\S]*?^```$/gm, "");
    const spans = [...new Set([...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!))];
    const paths = spans.filter((s) => /^[\w.-]+(\/[\w.-]+)*\/?$/.test(s) && /\/|\.(ts|json|mjs)$/.test(s));
    const names = spans.flatMap((s) => /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*(\(\))?$/.exec(s)?.[0] ?? []);
    expect(paths.length).toBeGreaterThan(50);
    expect(names.length).toBeGreaterThan(50);
    const found = (name: string) =>
      name
        .replace(/\(\)$/, "")
        .split(".")
        .every((part) => new RegExp(`(?<![\\w$])${part.replace(/\$/g, "\\$")}(?![\\w$])`).test(code));
    const missing = [
      ...paths
        .filter((p) => !existsSync(join(root, p)) && !files.some((f) => `/${f}`.includes(`/${p}`)))
        .map((p) => `ARCHITECTURE.md cites ${p}: no such file`),
      ...names
        .filter((n) => !paths.includes(n) && !found(n))
        .map((n) => `ARCHITECTURE.md names ${n}: no grep finds it`),
    ];
    expect(missing).toEqual([]);
  });

  it("makes anchors the way GitHub does", () => {
    expect(slug("Apply order and invariants")).toBe("apply-order-and-invariants");
    expect(slug("The contract's assumptions (G1 to G13)")).toBe("the-contracts-assumptions-g1-to-g13");
    expect(slug("`doohctl apply`")).toBe("doohctl-apply");
  });
});
