import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);

/** The package's root directory and version, whichever way doohctl was installed. */
function findPackage(): { root: string; version: string } | undefined {
  // Source runs from src/cli, the bundle from dist/src/bin: try both depths.
  for (const candidate of ["../../", "../../../"]) {
    try {
      const pkg = require(`${candidate}package.json`) as { name?: string; version?: string };
      if (pkg.name === "doohctl" && pkg.version) {
        return { root: fileURLToPath(new URL(candidate, import.meta.url)), version: pkg.version };
      }
    } catch {
      // not at this depth; try the next
    }
  }
  return undefined;
}

const PACKAGE = findPackage();

export const TOOL_VERSION = PACKAGE?.version ?? "0.0.0";

/** The installed package's directory, ending in a separator; undefined without its package.json. */
export const PACKAGE_ROOT = PACKAGE?.root;

/** The GitHub repository doohctl is installed from (package.json `repository`). */
export const REPOSITORY = "doohctl/doohctl";

/** The config schema at this version's tag: the one `$schema` URL, never changing under a config. */
export function configSchemaUrl(version: string = TOOL_VERSION): string {
  return `https://raw.githubusercontent.com/${REPOSITORY}/v${version}/schemas/doohctl.schema.json`;
}
