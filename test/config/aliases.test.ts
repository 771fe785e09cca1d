import { describe, expect, it } from "vitest";
import { ConfigError, type ConfigIssue } from "../../src/config/issues.js";
import { loadConfig } from "../../src/config/load.js";

/** Loads one in-memory doohctl.yaml through the injected reader. */
function loadText(text: string) {
  return loadConfig(["doohctl.yaml"], {
    cwd: "/w",
    readFile: async () => new TextEncoder().encode(text),
    listDirectory: async () => undefined,
  });
}

async function issuesOf(text: string): Promise<ConfigIssue[]> {
  const error = await loadText(text).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return [...(error as ConfigError).issues];
}

describe("aliases that loop", () => {
  it("reports a merge key naming its own enclosing anchor at the alias, with its path and the fix", async () => {
    const issues = await issuesOf("version: 1\nx-a: &a\n  k: 1\n  <<: *a\n");
    expect(issues).toEqual([
      {
        file: "doohctl.yaml",
        line: 4,
        column: 7,
        path: "x-a.<<",
        message:
          "this merge key refers to its own enclosing mapping (&a): a mapping cannot merge itself; move the shared keys into a separate anchored block and merge that",
        code: "YAML_SYNTAX",
      },
    ]);
  });

  it("reports a merge of an anchor that encloses the merging map further out", async () => {
    const issues = await issuesOf("version: 1\nx-a: &a\n  inner:\n    <<: [*a]\n");
    expect(issues).toMatchObject([{ line: 4, column: 10, path: "x-a.inner.<<[0]", code: "YAML_SYNTAX" }]);
    expect(issues[0]!.message).toMatch(/its own enclosing mapping \(&a\)/);
  });

  it("reports an alias inside the list its anchor names as a list that would contain itself", async () => {
    const issues = await issuesOf("version: 1\nx: &a\n  - *a\n");
    expect(issues).toEqual([
      expect.objectContaining({
        line: 3,
        column: 5,
        path: "x[0]",
        message: expect.stringMatching(
          /^this alias refers to its own enclosing list \(&a\): .*anchor a separate block/,
        ),
      }),
    ]);
  });

  it("reports an alias to the whole document inside it", async () => {
    const issues = await issuesOf("&root\nversion: 1\nx: *root\n");
    expect(issues).toMatchObject([{ line: 3, column: 4, path: "x", code: "YAML_SYNTAX" }]);
    expect(issues[0]!.message).toMatch(/its own enclosing mapping \(&root\)/);
  });

  it("reports every looping alias of a file, each where it is written", async () => {
    const issues = await issuesOf("version: 1\nx: &a\n  - *a\ny: &b\n  <<: *b\n");
    expect(issues.map((i) => `${i.line}:${i.column} ${i.path}`)).toEqual(["3:5 x[0]", "5:7 y.<<"]);
  });
});

describe("aliases that do not loop", () => {
  it("merges a sibling anchor, keys written in the merging map winning, and reuses it by alias", async () => {
    const state = await loadText(`version: 1
x-flight: &flight
  start_time: 2026-12-01T00:00:00Z
  end_time: 2027-01-01T00:00:00Z
insertion_orders:
  - id: "1001"
    campaigns:
      - name: Airports
        <<: *flight
        end_time: 2026-12-24T00:00:00Z
      - name: Malls
        <<: [*flight]
`);
    const [airports, malls] = state.insertionOrders[0]!.campaigns;
    expect(airports!.fields).toMatchObject({
      start_time: "2026-12-01T00:00:00Z",
      end_time: "2026-12-24T00:00:00Z",
    });
    expect(malls!.fields).toMatchObject({
      start_time: "2026-12-01T00:00:00Z",
      end_time: "2027-01-01T00:00:00Z",
    });
    // A merged value points at the anchor, where it was written.
    expect(malls!.fieldSources.end_time?.line).toBe(4);
  });

  it("follows the latest definition of a reused anchor name, not an enclosing one it shadows", async () => {
    const state = await loadText(`version: 1
x-shared: &t
  inner: &t
    - publisher_targeting_option: { publisher_ids: ["77"] }
  reused: *t
insertion_orders:
  - id: "1001"
    campaigns:
      - name: A
        targetings: *t
`);
    expect(state.insertionOrders[0]!.campaigns[0]!.targetings).toEqual([
      { publisher_targeting_option: { publisher_ids: ["77"], exclude: false } },
    ]);
  });

  it("accepts an alias to an anchor nested inside an earlier sibling", async () => {
    const state = await loadText(`version: 1
insertion_orders:
  - id: "1001"
    campaigns:
      - name: A
        targetings: &t
          - publisher_targeting_option: { publisher_ids: ["77"] }
      - name: B
        targetings: *t
`);
    const [a, b] = state.insertionOrders[0]!.campaigns;
    expect(b!.targetings).toEqual(a!.targetings);
  });
});
