/**
 * The README's install lines are true: `npm pack` makes a tarball that installs a working
 * `doohctl` (the bin, bundled with the packages it runs and their licences, the schemas it
 * reads at run time, the docs its messages cite and the LICENSE), with nothing of the sources
 * or tests in it. `.ci/run` also
 * installs it from git and from the tarball for real (scripts/check-install.sh). The tarball is packed from the built dist/ (`.ci/run` builds
 * before testing; `npm pack` alone runs `prepare`, which builds too), and packed and installed
 * once a run for this file and the runnable docs (test/helpers/packed.ts).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type Packed, packedAndInstalled } from "../helpers/packed.js";

const ROOT = join(import.meta.dirname, "../..");
const PKG = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  version: string;
  bin: Record<string, string>;
  dependencies?: Record<string, string>;
};

describe("npm pack", () => {
  let packed: Packed;
  let files: string[];

  beforeAll(() => {
    packed = packedAndInstalled();
    files = packed.files;
    expect(existsSync(join(ROOT, PKG.bin.doohctl ?? "")), "run npm run build first").toBe(true);
  }, 240_000);

  it("ships the bin, the compiled code and every schema, and no sources or tests", () => {
    expect(files).toContain(PKG.bin.doohctl);
    for (const schema of ["doohctl.schema.json", "plan.schema.json", "emulator-seed.schema.json"]) {
      expect(files).toContain(`schemas/${schema}`);
    }
    expect(files).toContain("examples/github/doohctl-plan.yml");
    // The GitLab pipeline runs the helper from the installed package.
    expect(files).toContain("examples/gitlab/doohctl-gitlab.mjs");
    expect(files).toContain("examples/gitlab/.gitlab-ci.yml");
    expect(files.filter((f) => f.startsWith("src/") || f.startsWith("test/"))).toEqual([]);
    expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
  });

  it("ships the bin as a bundle that needs no package installed, with the bundled licences", () => {
    const bundle = dirname(PKG.bin.doohctl ?? "");
    // tsc's module-per-file output stays in the checkout; the bundle is what runs.
    expect(files.filter((f) => f.startsWith("dist/") && dirname(f) !== bundle)).toEqual([]);
    expect(PKG.dependencies ?? {}).toEqual({});
    const licences = readFileSync(join(ROOT, bundle, "THIRD-PARTY-LICENSES.txt"), "utf8");
    expect(files).toContain(`${bundle}/THIRD-PARTY-LICENSES.txt`);
    for (const name of ["commander", "yaml", "undici", "ajv"])
      expect(licences).toMatch(new RegExp(`^== ${name} `, "m"));
  });

  it("ships the LICENSE and every file the messages and the shipped documents cite", () => {
    expect(files).toContain("LICENSE");
    expect(readFileSync(join(ROOT, "LICENSE"), "utf8")).toMatch(
      /^MIT License\n\nCopyright \(c\) \d{4} the doohctl authors\n/,
    );
    const cited = new Set<string>();
    for (const file of files.filter((f) => f.startsWith("dist/src/") && f.endsWith(".js"))) {
      for (const m of readFileSync(join(ROOT, file), "utf8").matchAll(/\bdocs\/[a-z-]+\.md/g))
        cited.add(m[0]);
    }
    expect(cited.size).toBeGreaterThan(0);
    for (const doc of files.filter((f) => f.endsWith(".md"))) {
      const text = readFileSync(join(ROOT, doc), "utf8");
      for (const [, target] of text.matchAll(/\]\((?!https?:|#|mailto:)([^)#\s]+)/g)) {
        cited.add(posix.normalize(posix.join(dirname(doc), target ?? "")));
      }
    }
    // A cited folder (examples/policy) resolves when the tarball holds files in it.
    const shipped = (path: string) => files.includes(path) || files.some((f) => f.startsWith(`${path}/`));
    expect([...cited].filter((path) => !shipped(path))).toEqual([]);
    expect(
      readdirSync(join(ROOT, "docs"))
        .map((f) => `docs/${f}`)
        .filter((f) => !files.includes(f)),
    ).toEqual([]);
  });

  it("installs globally from the tarball and runs offline commands", () => {
    const bin = join(packed.prefix, process.platform === "win32" ? "doohctl.cmd" : join("bin", "doohctl"));
    const doohctl = (...args: string[]) =>
      execFileSync(bin, args, { encoding: "utf8", env: { PATH: process.env.PATH ?? "", NO_COLOR: "1" } });
    expect(doohctl("--version")).toBe(`${PKG.version}\n`);
    const saved = join(ROOT, "test/render/golden/rich.json.golden");
    expect(doohctl("show", saved)).toBe(readFileSync(join(ROOT, "test/render/golden/rich.txt"), "utf8"));
    expect(JSON.parse(doohctl("schema"))).toHaveProperty("$id");
  }, 120_000);
});
