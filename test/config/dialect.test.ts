/**
 * `connection.dialect` (docs/connecting.md, Dialect): written in place or in a dialect file
 * the connection names, every key optional and defaulting to its gap decision, every value
 * judged by `parseDialect` and reported at its line; a top-level `dialect:` honoured only in
 * the named file, which is read through the same guards as every config file.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, type ConfigIssue } from "../../src/config/issues.js";
import { loadConfig } from "../../src/config/load.js";
import type { DesiredState } from "../../src/model/desired.js";
import { DEFAULT_DIALECT, type Dialect } from "../../src/model/dialect.js";

const ORDERS = "insertion_orders: [{ id: '1001' }]\n";

/** A tree of its own (a git work tree) holding `files`. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "doohctl-dialect-"));
  execFileSync("git", ["init", "-q", dir]);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** A config whose connection holds `dialect` (lines indented under `connection:`). */
function withDialect(dialect: string): string {
  return `version: 1\nconnection:\n  api_origin: https://dsp.example.com\n  dialect:${dialect}\n${ORDERS}`;
}

async function load(dir: string, paths: string[] = []): Promise<DesiredState> {
  return loadConfig(paths, { cwd: dir });
}

async function issuesOf(dir: string, paths: string[] = []): Promise<ConfigIssue[]> {
  try {
    await load(dir, paths);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.issues];
    throw error;
  }
  throw new Error("expected the config to be invalid");
}

/** Issues as `file:line path code`, the way a reader finds them. */
function where(issues: readonly ConfigIssue[]): string[] {
  return issues.map((i) => `${i.file}:${i.line} ${i.path} ${i.code}`);
}

describe("connection.dialect written in place", () => {
  it("reads every key of a full dialect", async () => {
    const dir = tree({
      "doohctl.yaml": withDialect(`
    insertion_orders_path: /orders
    contract_number: po_number
    progress: { parameter: with=delivery, member: delivery, impressions: shown, spend: spent }
    targetings: { read_path: "/campaigns/{id}/targeting_sets", member: sets }
    campaign_targetings: targeting_sets
    create_campaigns_member: items`),
    });
    const expected: Dialect = {
      insertion_orders_path: "/orders",
      contract_number: "po_number",
      progress: { parameter: "with=delivery", member: "delivery", impressions: "shown", spend: "spent" },
      targetings: { read_path: "/campaigns/{id}/targeting_sets", member: "sets" },
      campaign_targetings: "targeting_sets",
      create_campaigns_member: "items",
    };
    expect((await load(dir)).connection.dialect).toEqual(expected);
  });

  it("fills each group's unwritten keys with the defaults", async () => {
    const dir = tree({
      "doohctl.yaml": withDialect(`
    progress: { spend: spent }
    targetings: { member: sets }`),
    });
    expect((await load(dir)).connection.dialect).toEqual({
      ...DEFAULT_DIALECT,
      progress: { ...DEFAULT_DIALECT.progress, spend: "spent" },
      targetings: { ...DEFAULT_DIALECT.targetings, member: "sets" },
    });
  });

  it("leaves the dialect out when the connection writes none", async () => {
    const dir = tree({
      "doohctl.yaml": `version: 1\nconnection: { api_origin: https://dsp.example.com }\n${ORDERS}`,
    });
    expect((await load(dir)).connection.dialect).toBeUndefined();
  });

  it("reports each kind of bad value at its line, with DIALECT_INVALID and what to write", async () => {
    const dir = tree({
      "doohctl.yaml": withDialect(`
    insertion_orders_path: https://evil.example.com/orders
    contract_number: "no spaces"
    progress:
      parameter: page=2
      member: name
    targetings:
      read_path: /campaigns/../targetings/{id}
    create_campaigns_member: __proto__`),
    });
    const issues = await issuesOf(dir);
    expect(where(issues)).toEqual([
      "doohctl.yaml:5 connection.dialect.insertion_orders_path DIALECT_INVALID",
      "doohctl.yaml:6 connection.dialect.contract_number DIALECT_INVALID",
      "doohctl.yaml:8 connection.dialect.progress.parameter DIALECT_INVALID",
      "doohctl.yaml:11 connection.dialect.targetings.read_path DIALECT_INVALID",
      "doohctl.yaml:12 connection.dialect.create_campaigns_member DIALECT_INVALID",
    ]);
    const text = issues.map((i) => i.message);
    expect(text[0]).toContain("never a URL");
    expect(text[0]).toContain("this key is G1 (docs/assumptions.md)");
    expect(text[1]).toContain("must be a JSON member name");
    expect(text[2]).toContain("must not be a list parameter (page)");
    expect(text[3]).toContain("no `..`");
    expect(text[4]).toContain("this key is G3");
    // The values are judged, not quoted: a URL or a value a hand pasted is never echoed.
    expect(text.join("\n")).not.toContain("evil.example.com");
    // Collisions are checked once the rest is fine: progress.member `name` is a campaign member.
    const fixed = tree({ "doohctl.yaml": withDialect("\n    progress: { member: name }") });
    expect(where(await issuesOf(fixed))).toEqual([
      "doohctl.yaml:5 connection.dialect.progress.member DIALECT_INVALID",
    ]);
  });

  it("reports a value of the wrong type and a key no dialect has, with the schema's words", async () => {
    const dir = tree({
      "doohctl.yaml": withDialect(`
    campaign_targetings: 7
    progress: { membr: delivery }
    create_campaign_member: items`),
    });
    const issues = await issuesOf(dir);
    expect(where(issues)).toEqual([
      "doohctl.yaml:5 connection.dialect.campaign_targetings WRONG_TYPE",
      "doohctl.yaml:6 connection.dialect.progress.membr UNKNOWN_KEY",
      "doohctl.yaml:7 connection.dialect.create_campaign_member UNKNOWN_KEY",
    ]);
    expect(issues[1]!.hint).toBe('did you mean "member"?');
    expect(issues[2]!.hint).toBe('did you mean "create_campaigns_member"?');
  });

  it("refuses a dialect that is neither a map nor a path", async () => {
    const dir = tree({ "doohctl.yaml": withDialect(" [a, b]") });
    expect(where(await issuesOf(dir))).toEqual(["doohctl.yaml:4 connection.dialect WRONG_TYPE"]);
  });

  it("never quotes a value that looks like a credential", async () => {
    const token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    const dir = tree({ "doohctl.yaml": withDialect(`\n    insertion_orders_path: ${token}`) });
    const issues = await issuesOf(dir);
    expect(issues.length).toBeGreaterThan(0);
    expect(JSON.stringify(issues)).not.toContain(token);
  });
});

describe("a dialect file the connection names", () => {
  const DIALECT_FILE = "x-member: &member delivery\ndialect:\n  progress: { member: *member }\n";
  const changed = { ...DEFAULT_DIALECT, progress: { ...DEFAULT_DIALECT.progress, member: "delivery" } };

  it("is read from the config directory, as one of the files read anyway", async () => {
    const dir = tree({
      "config/doohctl.yaml": withDialect(" dialect.yaml"),
      "config/dialect.yaml": DIALECT_FILE,
    });
    const state = await load(dir, ["config"]);
    expect(state.connection.dialect).toEqual(changed);
    expect(state.files.map((f) => f.path)).toEqual(["config/dialect.yaml", "config/doohctl.yaml"]);
  });

  it("is read from outside the files read, relative to the connection's file, its digest joining theirs", async () => {
    const dir = tree({
      "config/doohctl.yaml": withDialect(" ../dialects/northwind.yaml"),
      "dialects/northwind.yaml": DIALECT_FILE,
    });
    const state = await load(dir, ["config"]);
    expect(state.connection.dialect).toEqual(changed);
    expect(state.files.map((f) => f.path)).toEqual(["config/doohctl.yaml", "dialects/northwind.yaml"]);
    expect(state.files[1]!.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("reports a bad value at its line in the dialect file", async () => {
    const dir = tree({
      "doohctl.yaml": withDialect(" dialect.yaml"),
      "dialect.yaml": "dialect:\n  targetings:\n    read_path: /targetings\n",
    });
    expect(where(await issuesOf(dir))).toEqual([
      "dialect.yaml:3 dialect.targetings.read_path DIALECT_INVALID",
    ]);
  });

  it("holds nothing else but `x-` keys: no version, no connection", async () => {
    const outside = tree({
      "doohctl.yaml": withDialect(" dialect.yaml"),
      "dialect.yaml": "version: 1\ndialect: { contract_number: po }\n",
    });
    const issues = await issuesOf(outside);
    expect(where(issues)).toEqual(["dialect.yaml:1 version DIALECT_INVALID"]);
    expect(issues[0]!.message).toBe('"version" is not allowed in a dialect file');
    // One of the files read: the same rule, said at its `dialect:`.
    const inside = tree({
      "config/doohctl.yaml": withDialect(" dialect.yaml"),
      "config/dialect.yaml": "version: 1\ndialect: { contract_number: po }\ncreatives: [{ id: '9' }]\n",
    });
    const [issue, ...rest] = await issuesOf(inside, ["config"]);
    expect(rest).toEqual([]);
    expect(where([issue!])).toEqual(["config/dialect.yaml:2 dialect DIALECT_INVALID"]);
    expect(issue!.message).toContain("holds version, creatives too");
  });

  it("is refused by name, at the connection's line, when missing, without `dialect:`, absolute, not YAML, outside the tree or a link out", async () => {
    const cases: Array<[string, Record<string, string>, string, string]> = [
      ["missing.yaml", {}, "DIALECT_INVALID", "names missing.yaml, which does not exist"],
      ["empty.yaml", { "empty.yaml": "x-note: 1\n" }, "DIALECT_INVALID", "which has no top-level `dialect:`"],
      ["/etc/dialect.yaml", {}, "DIALECT_INVALID", "absolute path"],
      ["dialect.json", { "dialect.json": "{}" }, "DIALECT_INVALID", "must name a .yaml or .yml file"],
      ["../outside.yaml", {}, "FILE_OUTSIDE_TREE", "the tree this run trusts"],
    ];
    for (const [path, files, code, words] of cases) {
      const dir = tree({ "doohctl.yaml": withDialect(` ${path}`), ...files });
      const issues = await issuesOf(dir);
      expect(where(issues), path).toEqual([`doohctl.yaml:4 connection.dialect ${code}`]);
      expect(issues[0]!.message, path).toContain(words);
    }
    const linked = tree({ "doohctl.yaml": withDialect(" dialect.yaml") });
    const elsewhere = mkdtempSync(join(tmpdir(), "doohctl-elsewhere-"));
    const secret = "hunter2-not-for-the-log";
    writeFileSync(join(elsewhere, "dialect.yaml"), `dialect: { contract_number: ${secret} }\n`);
    symlinkSync(join(elsewhere, "dialect.yaml"), join(linked, "dialect.yaml"));
    const issues = await issuesOf(linked);
    expect(where(issues)).toEqual(["doohctl.yaml:4 connection.dialect FILE_OUTSIDE_TREE"]);
    expect(JSON.stringify(issues)).not.toContain(secret);
  });

  it("reports a broken dialect file's YAML where it breaks, and nothing else", async () => {
    const dir = tree({
      "doohctl.yaml": withDialect(" dialect.yaml"),
      "dialect.yaml": "dialect:\n  progress: { member: delivery\n",
    });
    const issues = await issuesOf(dir);
    expect(issues.map((i) => `${i.file} ${i.code}`)).toEqual(["dialect.yaml YAML_SYNTAX"]);
  });

  it("refuses a named pipe without waiting for a writer", async () => {
    const dir = tree({ "doohctl.yaml": withDialect(" dialect.yaml") });
    execFileSync("mkfifo", [join(dir, "dialect.yaml")]);
    const issues = await issuesOf(dir);
    expect(where(issues)).toEqual(["doohctl.yaml:4 connection.dialect FILE_NOT_REGULAR"]);
    expect(issues[0]!.message).toContain("names dialect.yaml, which is a named pipe (FIFO)");
  });
});

describe("a top-level dialect in a file the connection does not name", () => {
  it("is DIALECT_NOT_NAMED, asking to name the file in connection.dialect", async () => {
    const dir = tree({
      "config/doohctl.yaml": `version: 1\nconnection: { api_origin: https://dsp.example.com }\n${ORDERS}`,
      "config/dialect.yaml": "dialect:\n  contract_number: po\n",
    });
    const issues = await issuesOf(dir, ["config"]);
    expect(where(issues)).toEqual(["config/dialect.yaml:1 dialect DIALECT_NOT_NAMED"]);
    expect(issues[0]!.message).toContain("name this file there");
  });

  it("is DIALECT_NOT_NAMED beside the named one, which is still read", async () => {
    const dir = tree({
      "config/doohctl.yaml": withDialect(" ../dialect.yaml"),
      "config/stray.yaml": `version: 1\ndialect: { contract_number: po }\n`,
      "dialect.yaml": "dialect: { contract_number: po_number }\n",
    });
    const issues = await issuesOf(dir, ["config"]);
    expect(where(issues)).toEqual(["config/stray.yaml:2 dialect DIALECT_NOT_NAMED"]);
    expect(issues[0]!.message).toContain("it names dialect.yaml");
  });
});
