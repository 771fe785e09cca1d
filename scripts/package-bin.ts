/**
 * Where the built doohctl is: package.json's `bin`, the one place that says it. The bundle is
 * written there (scripts/bundle.ts); the bench, the tests and the Action run what it names, as
 * an installed doohctl does.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The absolute path of the doohctl bin of the package at `root`. */
export function packageBin(root: string): string {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { bin?: { doohctl?: string } };
  if (typeof pkg.bin?.doohctl !== "string") throw new Error(`${root}/package.json has no bin.doohctl`);
  return join(root, pkg.bin.doohctl);
}
