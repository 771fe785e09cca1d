/**
 * The string formats of doohctl's schemas (`http-url`, url.ts, only the config's), for the one Ajv
 * set-up (json-schema.ts) and the validators generated at build time alike. It loads no ajv but
 * the formats: a command that only validates never loads the compiler.
 */
import { fullFormats } from "ajv-formats/dist/formats.js";
import { isHttpUrl } from "./url.js";

export const SCHEMA_FORMATS = {
  "date-time": fullFormats["date-time"],
  uri: fullFormats.uri,
  "http-url": isHttpUrl,
} as const;

export type SchemaFormatName = keyof typeof SCHEMA_FORMATS;
