import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

function findVersion(): string {
  // Source runs from src/cli, the build from dist/src/cli: try both depths.
  for (const candidate of ["../../package.json", "../../../package.json"]) {
    try {
      const pkg = require(candidate) as { name?: string; version?: string };
      if (pkg.name === "doohctl" && pkg.version) return pkg.version;
    } catch {
      // not at this depth; try the next
    }
  }
  return "0.0.0";
}

export const TOOL_VERSION = findVersion();

/** The GitHub repository doohctl is installed from (package.json `repository`). */
export const REPOSITORY = "doohctl/doohctl";

/**
 * The config schema at this version's tag, as raw file: the one `$schema` URL of the README,
 * the examples and `export`. It resolves as soon as the tag vX.Y.Z is pushed, and never
 * changes under a config written for that version.
 */
export function configSchemaUrl(version: string = TOOL_VERSION): string {
  return `https://raw.githubusercontent.com/${REPOSITORY}/v${version}/schemas/doohctl.schema.json`;
}
