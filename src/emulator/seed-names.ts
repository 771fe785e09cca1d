/**
 * The seeds that ship with doohctl, by name (`--seed demo`), found wherever doohctl is installed
 * (docs/emulator.md).
 */
import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Each name and its file, relative to the package root. */
export const SEED_NAMES: Readonly<Record<string, string>> = {
  demo: "examples/emulator-seed.json",
};

/** The quick start written for the `demo` seed's days (`doohctl emulator --quickstart DIR`). */
export const QUICKSTART_FILE = "examples/quickstart/doohctl.yaml";

/** The package root from this module: `src/emulator` (sources) or `dist/src/bin` (the bundle). */
const ROOTS = ["../../", "../../../"];

/** The shipped file at `file` (from the package root), or undefined when the package lacks it. */
export function packagedFile(file: string): string | undefined {
  for (const root of ROOTS) {
    const path = fileURLToPath(new URL(root + file, import.meta.url));
    if (existsSync(path)) return path;
  }
  return undefined;
}

/** A value naming no file and no seed: the message says both ways to write it. */
export class SeedNameError extends Error {
  override readonly name = "SeedNameError";
  readonly code = "EMULATOR_SEED_INVALID";
}

/**
 * What `--seed VALUE` reads: a name of `SEED_NAMES` is the packaged seed, anything else a path from
 * `cwd` (`./demo` for a file named like a seed); a bare word that is neither is refused with the names.
 */
export function seedPath(value: string, cwd: string): string {
  const file = Object.hasOwn(SEED_NAMES, value) ? SEED_NAMES[value] : undefined;
  if (file !== undefined) {
    const path = packagedFile(file);
    if (path === undefined) {
      throw new SeedNameError(
        `--seed ${value}: the packaged ${file} is missing next to ${fileURLToPath(import.meta.url)}: the installation is incomplete; reinstall doohctl or give the seed's path`,
      );
    }
    return path;
  }
  const path = isAbsolute(value) ? value : resolve(cwd, value);
  if (/^[\w-]+$/.test(value) && !existsSync(path)) {
    throw new SeedNameError(
      `--seed ${value}: no file "${value}" in ${cwd} and no packaged seed of that name: give a seed file's path, or one of: ${Object.keys(SEED_NAMES).join(", ")}`,
    );
  }
  return path;
}
