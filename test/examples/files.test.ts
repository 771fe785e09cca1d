/**
 * Every file under examples/ is something a user copies: it must parse, config examples must
 * validate, and CI workflows must keep credentials in the CI's secret store and never run two
 * applies at once.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { run } from "../../src/cli/program.js";
import { configSchemaUrl, REPOSITORY } from "../../src/cli/version.js";
import { loadConfig } from "../../src/config/load.js";
import { loadSeedFile } from "../../src/emulator/index.js";
import { startCliAccount } from "../helpers/cli-account.js";
import { bufferIO } from "../helpers/io.js";

const ROOT = join(import.meta.dirname, "../..");
const EXAMPLES = join(ROOT, "examples");

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const yamlFiles = filesUnder(EXAMPLES).filter((f) => /\.ya?ml$/.test(f));
const workflows = yamlFiles.filter(
  (f) => f.includes(`${join("examples", "github")}`) || f.includes(`${join("examples", "gitlab")}`),
);
const CONFIG_EXAMPLES = ["examples/quickstart", "examples/multi-file", "examples/policy"];

// biome-ignore lint/suspicious/noExplicitAny: workflows are walked as plain parsed YAML
type Node = any;

/** Every `env` map in a workflow (top level, job, step), with where it is. */
function envMaps(node: Node, at = ""): [string, Record<string, unknown>][] {
  if (node === null || typeof node !== "object") return [];
  const found: [string, Record<string, unknown>][] = [];
  for (const [key, value] of Object.entries(node)) {
    const here = at === "" ? key : `${at}.${key}`;
    if (
      (key === "env" || key === "variables") &&
      value &&
      typeof value === "object" &&
      !Array.isArray(value)
    ) {
      found.push([here, value as Record<string, unknown>]);
    }
    found.push(...envMaps(value, here));
  }
  return found;
}

/** Every shell script of a workflow: GitHub `run:` steps and GitLab `script:` lines. */
function scripts(node: Node): string[] {
  if (node === null || typeof node !== "object") return [];
  const found: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    if ((key === "run" || key === "script" || key === "before_script") && typeof value === "string") {
      found.push(value);
    } else if ((key === "script" || key === "before_script") && Array.isArray(value)) {
      found.push(...value.filter((line): line is string => typeof line === "string"));
    } else {
      found.push(...scripts(value));
    }
  }
  return found;
}

const SECRET_NAME = /PASSWORD|SECRET|TOKEN|EMAIL/i;

describe("examples/", () => {
  it("holds the quick start, the multi-file example, GitHub workflows and the emulator seed", () => {
    const names = filesUnder(EXAMPLES).map((f) => relative(ROOT, f));
    expect(names).toContain("examples/quickstart/doohctl.yaml");
    expect(names).toContain("examples/emulator-seed.json");
    expect(names.filter((n) => n.startsWith("examples/github/"))).toHaveLength(5);
    expect(names.filter((n) => n.startsWith("examples/multi-file/")).length).toBeGreaterThan(1);
  });

  it.each(yamlFiles.map((f) => [relative(ROOT, f)]))(
    "%s parses as YAML without errors or warnings",
    (file) => {
      const docs = parseAllDocuments(readFileSync(join(ROOT, file), "utf8"));
      expect(Array.isArray(docs)).toBe(true);
      for (const doc of docs as { errors: unknown[]; warnings: unknown[] }[]) {
        expect(doc.errors).toEqual([]);
        expect(doc.warnings).toEqual([]);
      }
    },
  );

  it("config examples start with the schema comment that editors use", () => {
    for (const file of yamlFiles.filter((f) => !workflows.includes(f))) {
      expect(readFileSync(file, "utf8").split("\n")[0], relative(ROOT, file)).toBe(
        `# yaml-language-server: $schema=${configSchemaUrl()}`,
      );
    }
  });

  it("the docs name the same $schema URL as the examples and export", () => {
    for (const doc of ["docs/configuring.md", "docs/export.md", "docs/validate.md"]) {
      const urls = [...readFileSync(join(ROOT, doc), "utf8").matchAll(/\$schema=(\S+)/g)].map((m) => m[1]);
      expect(urls.length, doc).toBeGreaterThan(0);
      for (const url of urls) expect(url, doc).toBe(configSchemaUrl());
    }
  });

  it("the $schema URL resolves: this version's tag of the repository package.json names, a shipped file", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      version: string;
      repository: { url: string };
      files: string[];
    };
    expect(pkg.repository.url).toBe(`git+https://github.com/${REPOSITORY}.git`);
    const url = configSchemaUrl();
    const prefix = `https://raw.githubusercontent.com/${REPOSITORY}/v${pkg.version}/`;
    expect(url.startsWith(prefix)).toBe(true);
    const path = url.slice(prefix.length);
    expect(existsSync(join(ROOT, path))).toBe(true);
    expect(pkg.files).toContain(path.split("/")[0]);
  });

  it.each(CONFIG_EXAMPLES.map((p) => [p]))("%s passes doohctl validate", async (path) => {
    const io = bufferIO({ cwd: ROOT });
    expect(await run(["validate", path], io), io.err()).toBe(0);
    expect(io.out()).toMatch(/^valid: /);
  });

  it("the quick start declares every kind of change the demo shows", async () => {
    const state = await loadConfig(["examples/quickstart"], { cwd: ROOT });
    const campaigns = state.insertionOrders.flatMap((io) => io.campaigns);
    expect(campaigns.some((c) => c.id === undefined && c.fields.active === true)).toBe(true);
    expect(state.connection).toEqual({});
  });

  it("the emulator seed is valid and starts an emulator with its demo user and a colleague of the same account (docs/emulator.md, rehearsing drift)", async () => {
    const seed = await loadSeedFile(join(EXAMPLES, "emulator-seed.json"));
    const emulator = (await startCliAccount({ seed })).emulator;
    try {
      expect(emulator.users().map((u) => u.email)).toEqual(["demo@doohctl.test", "colleague@doohctl.test"]);
      expect(new Set(emulator.users().map((u) => u.account_id)).size).toBe(1);
    } finally {
      await emulator.close();
    }
  });
});

describe("CI workflow examples", () => {
  it.each(workflows.map((f) => [relative(ROOT, f)]))(
    "%s takes credentials only from the secret store",
    (file) => {
      const doc: Node = parseAllDocuments(readFileSync(join(ROOT, file), "utf8"))
        .map((d) => (d as { toJS(): unknown }).toJS())
        .at(0);
      const maps = envMaps(doc);
      const credentials = maps.flatMap(([at, env]) =>
        Object.entries(env)
          .filter(([name]) => SECRET_NAME.test(name))
          .map(([name, value]) => ({ at: `${at}.${name}`, value: String(value) })),
      );
      if (file.includes("examples/gitlab/")) {
        // GitLab injects masked CI/CD variables itself; a workflow must never set them inline.
        for (const c of credentials) expect(c.value, c.at).toMatch(/^\$\{?[A-Z_]+\}?$/);
      } else {
        expect(credentials.length, "a workflow that talks to the DSP passes credentials").toBeGreaterThan(0);
        // GitHub's own per-run token (`github.token`) is the secret store's too.
        for (const c of credentials) {
          // The fan-out workflows: an account's variable NAMES come from the matrix (`*_FROM`),
          // its values from the secret named so (`secrets[matrix.password_from]`).
          if (c.at.endsWith("_FROM")) {
            expect(c.value, c.at).toMatch(/^\$\{\{\s*matrix\.[a-z_]+_from\s*\}\}$/);
            continue;
          }
          expect(c.value, c.at).toMatch(
            /^\$\{\{\s*(secrets\.[A-Z_]+|github\.token|secrets\[(matrix\.[a-z_]+_from|format\('\{0\}_PLAN', matrix\.[a-z_]+_from\))\])\s*\}\}$/,
          );
          if (/DOOHCTL/.test(c.at)) expect(c.value, c.at).toMatch(/secrets\.DOOHCTL_/);
        }
      }
    },
  );

  it.each(workflows.map((f) => [relative(ROOT, f)]))("%s never echoes a secret", (file) => {
    const doc: Node = (
      parseAllDocuments(readFileSync(join(ROOT, file), "utf8"))[0] as { toJS(): unknown }
    ).toJS();
    for (const script of scripts(doc)) {
      for (const line of script.split("\n")) {
        if (!/\b(echo|printf|cat|tee)\b/.test(line)) continue;
        expect(line, `${file}: ${line.trim()}`).not.toMatch(/\$\{?DOOHCTL_(PASSWORD|EMAIL)|secrets\./);
      }
      expect(script, file).not.toMatch(/set -x|--verbose.*PASSWORD/);
    }
  });

  it("GitHub workflows run in concurrency groups, and no two applies can overlap", () => {
    const github = workflows.filter((f) => f.includes(join("examples", "github")));
    const groups = new Map<string, string>();
    for (const file of github) {
      const doc: Node = (parseAllDocuments(readFileSync(file, "utf8"))[0] as { toJS(): unknown }).toJS();
      if (file.endsWith("doohctl-accounts-apply.yml")) {
        // One group per account on the matrix job, never cancelling: two applies of one
        // account never overlap, two accounts apply side by side (docs/scaling.md).
        expect(doc.concurrency, "no workflow-wide group: it would queue every account").toBeUndefined();
        expect(doc.jobs.apply.concurrency).toEqual({
          group: `doohctl-\${{ matrix.account }}`,
          "cancel-in-progress": false,
        });
        expect(doc.jobs.apply.strategy["fail-fast"]).toBe(false);
        continue;
      }
      expect(doc.concurrency?.group, relative(ROOT, file)).toEqual(expect.any(String));
      groups.set(relative(ROOT, file), doc.concurrency.group);
      if (file.endsWith("doohctl-apply.yml")) {
        // A fixed group (no per-run expression) and no cancelling: an apply is never cut off.
        expect(doc.concurrency.group).not.toContain("${{");
        expect(doc.concurrency["cancel-in-progress"] ?? false).toBe(false);
      }
    }
    // Groups span the repository's workflows: no two workflows share one.
    expect(new Set(groups.values()).size).toBe(groups.size);
    expect(groups.size).toBe(4);
  });
});
