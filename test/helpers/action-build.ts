/**
 * The build identity action.yml's install step gives a doohctl (its `build` step: a digest of
 * the files the package is built from), and a `doohctl` on PATH laid out as an npm global
 * install of that build: bin/doohctl linked to the package's bin (package.json), the
 * package holding doohctl-build.txt. The install step then uses it instead of building.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { parse } from "yaml";
import { MAIN, ROOT } from "../proof/binary.js";
import { type ActionYaml, parseCommandFile } from "./composite-action.js";

const ACTION = parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as ActionYaml;

/** The `id` output of action.yml's `build` step for the action checked out at `actionPath`. */
export function actionBuildId(actionPath: string): string {
  const step = ACTION.runs.steps.find((s) => s.id === "build");
  if (!step?.run) throw new Error("action.yml has no `build` step");
  const temp = mkdtempSync(join(tmpdir(), "doohctl-build-id-"));
  try {
    const output = join(temp, "output");
    writeFileSync(output, "");
    execFileSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", step.run], {
      env: {
        PATH: process.env.PATH ?? "",
        ACTION_PATH: actionPath,
        RUNNER_TEMP: temp,
        GITHUB_OUTPUT: output,
      },
      stdio: ["ignore", "ignore", "inherit"],
    });
    const id = parseCommandFile(readFileSync(output, "utf8")).id;
    if (!id) throw new Error("the build step wrote no id");
    return id;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

let checkoutId: string | undefined;

/**
 * Puts in `bin` a `doohctl` running this checkout's built CLI, installed the way the action's
 * install step leaves it (with `build`, another build of the same version).
 */
export function doohctlBuiltByAction(bin: string, build?: string): void {
  checkoutId ??= actionBuildId(ROOT);
  const pkg = join(dirname(bin), `doohctl-package-${Math.random().toString(36).slice(2)}`);
  const main = join(pkg, relative(ROOT, MAIN));
  mkdirSync(dirname(main), { recursive: true });
  writeFileSync(join(pkg, "doohctl-build.txt"), `${build ?? checkoutId}\n`);
  writeFileSync(main, `#!/bin/sh\nexec "${process.execPath}" "${MAIN}" "$@"\n`);
  chmodSync(main, 0o755);
  symlinkSync(relative(bin, main), join(bin, "doohctl"));
}
