/**
 * The string formats doohctl's JSON schemas use, by name, as ajv reads them: ajv-formats'
 * `date-time` and `uri`, and doohctl's own `http-url` (src/model/url.ts), which only the
 * config schema's copy uses (ARCHITECTURE.md, Configuration). The one Ajv set-up
 * (json-schema.ts) registers them from here, and the validators generated at build time
 * (scripts/gen-validators.ts) call them from here, so both check a value alike. This module
 * loads no part of ajv but the formats: a command that only validates never loads the compiler.
 */
import { fullFormats } from "ajv-formats/dist/formats.js";
import { isHttpUrl } from "./url.js";

export const SCHEMA_FORMATS = {
  "date-time": fullFormats["date-time"],
  uri: fullFormats.uri,
  "http-url": isHttpUrl,
} as const;

export type SchemaFormatName = keyof typeof SCHEMA_FORMATS;
