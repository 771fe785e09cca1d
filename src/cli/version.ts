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
