/**
 * `npm run build`, after tsc: the CLI users run, bundled into package.json's `bin`
 * (scripts/package-bin.ts) with the packages it imports. A start then reads a handful of files
 * instead of some 80 modules of ours and yaml's CommonJS files (docs/performance.md, Start-up).
 * ES modules split at each dynamic `import()`, so a command's module (src/cli/program.ts) and
 * what only it uses stay unread until it runs. Beside the chunks: their source maps (positions
 * in src/, read only under NODE_OPTIONS=--enable-source-maps) and THIRD-PARTY-LICENSES.txt, the
 * licence of each package bundled. The chunks sit at the depth of dist/src/<folder>/, so the
 * paths src resolves from its own module (the schemas, the seeds, package.json) hold unchanged.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type RolldownOutput } from "rolldown";
import { packageBin } from "./package-bin.js";

const root = fileURLToPath(new URL(import.meta.url.includes("/dist/") ? "../../" : "../", import.meta.url));
const ENTRY = "src/cli/main.ts";

/**
 * yaml's ES module build, the one its package gives every platform but Node (`browser/`, the
 * same code as its CommonJS `dist/` for Node, which warns through `process.emitWarning` where
 * this one uses `console.warn`; doohctl reads a document's warnings itself). As ES modules it
 * is bundled without CommonJS wrappers and only what doohctl uses: validate measured 1.47
 * times a bare import of commander with it against 1.66 with the CommonJS build (21 rounds
 * taking turns, 2026-12-02 16:05 UTC, load average 6.7).
 */
function yamlEsm(): string {
  const path = join(
    dirname(createRequire(import.meta.url).resolve("yaml/package.json")),
    "browser",
    "index.js",
  );
  if (!existsSync(path)) throw new Error(`yaml's ES module build is not at ${path}: see scripts/bundle.ts`);
  return path;
}

/** The directory of each package the chunks hold, from its modules' paths. */
function bundledPackages(output: RolldownOutput): string[] {
  const ids = output.output.flatMap((chunk) => (chunk.type === "chunk" ? chunk.moduleIds : []));
  const dirs = ids.map((id) => /^(.*\/node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(id)?.[1] ?? "");
  return [...new Set(dirs.filter(Boolean))].sort();
}

/** Each bundled package's name, version, licence and licence file, as the MIT and ISC licences ask. */
function licences(dirs: string[]): string {
  const parts = dirs.map((dir) => {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, string>;
    const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.(md|txt))?$/i.test(f));
    if (file === undefined) throw new Error(`${relative(root, dir)} ships no licence file to bundle with it`);
    return `== ${pkg.name} ${pkg.version} (${pkg.license})\n\n${readFileSync(join(dir, file), "utf8").trim()}\n`;
  });
  return `The doohctl bin in this directory bundles these packages; each one's licence follows.\n\n${parts.join("\n")}`;
}

export async function bundle(): Promise<string[]> {
  const bin = packageBin(root);
  const dir = dirname(bin);
  // The directory is emptied first (no chunk of an older build stays): tsc's output is not in it.
  if (existsSync(join(root, "src", relative(join(root, "dist", "src"), dir)))) {
    throw new Error(`the bundle needs a directory of its own: ${relative(root, dir)} is also tsc's output`);
  }
  rmSync(dir, { recursive: true, force: true });
  const warnings: string[] = [];
  const output = await build({
    cwd: root,
    input: { [basename(bin, ".js")]: ENTRY },
    platform: "node",
    tsconfig: "tsconfig.json",
    transform: { target: "node20" },
    resolve: { alias: { yaml: yamlEsm() } },
    onLog: (level, log) => {
      if (level === "warn") warnings.push(log.message);
    },
    output: {
      dir,
      format: "esm",
      chunkFileNames: "[name]-[hash].js",
      sourcemap: true,
      sourcemapExcludeSources: true,
      // The packages' own licence comments stay where they are; the rest of the comments go.
      comments: { legal: true, annotation: false, jsdoc: false },
    },
  });
  if (warnings.length > 0) throw new Error(`the bundle of ${ENTRY} has warnings:\n${warnings.join("\n")}`);
  writeFileSync(join(dir, "THIRD-PARTY-LICENSES.txt"), licences(bundledPackages(output)));
  return output.output.map((file) => relative(root, join(dir, file.fileName)));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const files = await bundle();
  process.stdout.write(
    `bundled ${ENTRY} into ${files.length} files in ${relative(root, dirname(packageBin(root)))}/\n`,
  );
}
