/** Where `schemas/doohctl.schema.json` is, from `src/config` (sources) or `dist/src/bin` (the bundle). */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const CANDIDATES = ["../../schemas/doohctl.schema.json", "../../../schemas/doohctl.schema.json"];

export function configSchemaPath(): string {
  for (const relative of CANDIDATES) {
    const path = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error(
    `schemas/doohctl.schema.json not found next to ${fileURLToPath(import.meta.url)}: the installation is incomplete`,
  );
}

/** The schema file's text, exactly as shipped. */
export function readConfigSchemaText(): string {
  return readFileSync(configSchemaPath(), "utf8");
}

let parsed: Record<string, unknown> | undefined;

/** The schema as an object, read once per process. */
export function configSchema(): Record<string, unknown> {
  parsed ??= JSON.parse(readConfigSchemaText()) as Record<string, unknown>;
  return parsed;
}
