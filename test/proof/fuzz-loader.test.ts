/**
 * Fuzzing the config loader: random YAML documents and random mutations of the
 * shipped examples never crash it. Every outcome is a DesiredState or a ConfigError whose
 * every issue names the file and a line and column inside it (line 0 only for issues about a
 * file as a whole: unreadable, not UTF-8, empty).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ConfigError } from "../../src/config/issues.js";
import { loadConfig } from "../../src/config/load.js";
import { ROOT } from "./binary.js";
import { LONG } from "./world.js";

const EXAMPLES = join(ROOT, "examples", "multi-file");
const EXAMPLE_FILES = Object.fromEntries(
  readdirSync(EXAMPLES)
    .filter((name) => name.endsWith(".yaml"))
    .sort()
    .map((name) => [name, readFileSync(join(EXAMPLES, name), "utf8")]),
);
const WHOLE_FILE = new Set(["FILE_NOT_FOUND", "FILE_UNREADABLE", "NO_YAML_FILES", "NOT_UTF8", "EMPTY_FILE"]);

function loadText(text: string): Promise<unknown> {
  return loadConfig(["doohctl.yaml"], {
    cwd: "/w",
    readFile: async () => new TextEncoder().encode(text),
    listDirectory: async () => undefined,
  });
}

/** Loads `files` (name -> text) as the directory `cfg`, as `doohctl validate cfg` would. */
async function load(files: Record<string, string | Uint8Array>): Promise<void> {
  const bytes = (text: string | Uint8Array) =>
    typeof text === "string" ? new TextEncoder().encode(text) : text;
  try {
    const state = await loadConfig(["cfg"], {
      cwd: "/w",
      readFile: async (path) => {
        const name = path.slice("/w/cfg/".length);
        const text = files[name];
        if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
        return bytes(text);
      },
      listDirectory: async (path) => (path === "/w/cfg" ? Object.keys(files) : undefined),
    });
    expect(Array.isArray(state.insertionOrders)).toBe(true);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    expect(error.issues.length).toBeGreaterThan(0);
    for (const issue of error.issues) {
      const name = issue.file.replace(/^cfg\//, "");
      expect(Object.keys(files), issue.message).toContain(name);
      expect(issue.message.length).toBeGreaterThan(0);
      if (WHOLE_FILE.has(issue.code)) continue;
      const content = files[name];
      const lines = (typeof content === "string" ? content : new TextDecoder().decode(content)).split("\n");
      expect(issue.line, `${issue.code} ${issue.message}`).toBeGreaterThanOrEqual(1);
      expect(issue.line, `${issue.code} ${issue.message}`).toBeLessThanOrEqual(lines.length + 1);
      expect(issue.column, `${issue.code} ${issue.message}`).toBeGreaterThanOrEqual(1);
    }
  }
}

const KEYS = [
  "version",
  "connection",
  "api_origin",
  "environment",
  "rate_limits",
  "insertion_orders",
  "id",
  "campaigns",
  "name",
  "active",
  "start_time",
  "end_time",
  "budget_impressions",
  "budget_money",
  "cpm",
  "pacing",
  "targetings",
  "creatives",
  "unmanaged_campaigns",
  "contract_number",
  "venue_targeting_option",
  "venue_targeting_ids",
  "exclude",
  "password",
  "<<",
];
const scalar = fc.oneof(
  fc.constantFrom(
    "1001",
    "12.50 USD",
    "2026-12-01T00:00:00Z",
    "2026-13-01",
    "deactivate",
    1,
    1.5,
    -3,
    true,
    null,
  ),
  fc.constantFrom(2 ** 60, "１２", "💥", "", "~", "*a"),
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.double(),
);
const node: fc.Memo<unknown> = fc.memo((depth) =>
  depth <= 1
    ? scalar
    : fc.oneof(
        scalar,
        fc.array(node(depth - 1), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom(...KEYS), node(depth - 1), { maxKeys: 4 }),
      ),
);
const document = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 64 }),
  node(5).map((v) => stringify(v)),
  fc
    .dictionary(fc.constantFrom(...KEYS), node(4), { maxKeys: 5 })
    .map((v) => stringify({ version: 1, ...v })),
);

/** One edit of a text: delete, insert, duplicate or swap lines, or replace characters. */
const edit = fc.oneof(
  fc.record({ kind: fc.constant("delete" as const), at: fc.nat(), length: fc.integer({ min: 1, max: 20 }) }),
  fc.record({
    kind: fc.constant("insert" as const),
    at: fc.nat(),
    text: fc.oneof(
      fc.string({ maxLength: 10 }),
      fc.constantFrom(":", "- ", "\t", "  ", "&x ", "*x", "'", "{", "\n"),
    ),
  }),
  fc.record({ kind: fc.constant("duplicate-line" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("swap-lines" as const), at: fc.nat(), other: fc.nat() }),
);
type Edit = typeof edit extends fc.Arbitrary<infer T> ? T : never;

function mutate(text: string, edits: Edit[]): string {
  let out = text;
  for (const e of edits) {
    const at = out.length === 0 ? 0 : e.at % out.length;
    if (e.kind === "delete") out = out.slice(0, at) + out.slice(at + e.length);
    else if (e.kind === "insert") out = out.slice(0, at) + e.text + out.slice(at);
    else {
      const lines = out.split("\n");
      const i = e.at % lines.length;
      if (e.kind === "duplicate-line") lines.splice(i, 0, lines[i]!);
      else {
        const j = e.other % lines.length;
        [lines[i], lines[j]] = [lines[j]!, lines[i]!];
      }
      out = lines.join("\n");
    }
  }
  return out;
}

describe("fuzzing the config loader", () => {
  it("the examples load as they are", async () => {
    const state = await loadConfig(["multi-file"], { cwd: join(ROOT, "examples") });
    expect(state.insertionOrders.length).toBeGreaterThan(0);
  });

  // Both found by this fuzz (a TypeError each, before the fix in src/config): kept as examples.
  it("reports a merge key naming its own enclosing anchor as a located issue", async () => {
    await expect(loadText("version: 1\nx-a: &a\n  k: 1\n  <<: *a\n")).rejects.toBeInstanceOf(ConfigError);
    await load({ "doohctl.yaml": "version: 1\nx-a: &a\n  k: 1\n  <<: *a\n" });
  });

  it("reports an integer beyond 2^53 where it does not belong as a located issue", async () => {
    await expect(loadText("version: 1152921504606847000\n")).rejects.toBeInstanceOf(ConfigError);
    await load({ "doohctl.yaml": "version:\n  - 1152921504606847000\n" });
  });

  it("answers random documents with a state or located issues, never a crash", {
    timeout: LONG ? 600_000 : 30_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(document, async (doc) => load({ "doohctl.yaml": doc })),
      { numRuns: LONG ? 5_000 : 300, seed: 8_2026 },
    );
  });

  it("answers random mutations of the examples with a state or located issues, never a crash", {
    timeout: LONG ? 600_000 : 30_000,
  }, async () => {
    const names = Object.keys(EXAMPLE_FILES);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...names),
        fc.array(edit, { minLength: 1, maxLength: 4 }),
        async (name, edits) => load({ ...EXAMPLE_FILES, [name]: mutate(EXAMPLE_FILES[name]!, edits) }),
      ),
      { numRuns: LONG ? 2_000 : 60, seed: 8_2027 },
    );
  });
});
