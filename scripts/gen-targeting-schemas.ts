/**
 * Writes the parts of the JSON schemas that the model describes once. From the option kinds
 * (`TARGETING_OPTIONS`, src/model/targeting-members.ts): the config schema's
 * `$defs/targeting_option_set`, the contract's `components/schemas/TargetingOptionSet`, and
 * the emulator's seed schema (SEED_SCHEMA, which takes its option set from the same table).
 * From the resources' members (`RESOURCES`, src/model/resource-fields.ts): their properties in
 * the config schema's `$defs` and in the contract's read, PATCH and create schemas
 * (src/model/resource-schemas.ts). From the dialect's keys (`DIALECT_KEYS`, src/model/dialect.ts):
 * the config schema's `$defs/dialect`. Then docs/config.md, which is made from the config schema,
 * and the validators compiled from the schemas (scripts/gen-validators.ts).
 * Every other part of each file is left as it is.
 * Run after changing a description: `npm run build && node dist/scripts/gen-targeting-schemas.js`.
 * test/model/targeting-members.test.ts, test/model/resource-fields.test.ts and
 * test/config/dialect-schema.test.ts fail when a file is out of date.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseDocument } from "yaml";
import { SEED_SCHEMA } from "../src/emulator/seed-schema.js";
import { DEFAULT_DIALECT, DIALECT_KEYS, type DialectKey, dialectValue } from "../src/model/dialect.js";
import { RESOURCES, type ResourceTable } from "../src/model/resource-fields.js";
import { configResourceSchema, contractResourceSchema } from "../src/model/resource-schemas.js";
import { excludeDocs, TARGETING_OPTIONS, type TargetingOptionKind } from "../src/model/targeting-members.js";
import { configDocsPath, renderConfigDocs } from "./gen-config-docs.js";
import { writeGeneratedValidators } from "./gen-validators.js";

type Schema = Record<string, unknown>;

/** `$defs/targeting_option_set` of schemas/doohctl.schema.json. */
export function configOptionSetSchema(): Schema {
  const option = (kind: TargetingOptionKind): Schema => ({
    description: kind.docs.option,
    type: "object",
    additionalProperties: false,
    required: [kind.ids.name],
    properties: {
      [kind.ids.name]: {
        description: kind.docs.ids,
        $ref: kind.ids.of === "numeric" ? "#/$defs/venue_type_id_list" : "#/$defs/id_list",
      },
      ...(kind.exclude ? { exclude: { description: excludeDocs(kind), type: "boolean" } } : {}),
    },
  });
  return {
    description: "One targeting option set: one or more options, all of which a venue must satisfy.",
    type: "object",
    additionalProperties: false,
    minProperties: 1,
    properties: Object.fromEntries(TARGETING_OPTIONS.map((kind) => [kind.member, option(kind)])),
  };
}

/** `components/schemas/TargetingOptionSet` of schemas/dsp-api.openapi.json. */
export function contractOptionSetSchema(): Schema {
  const idList = (kind: TargetingOptionKind): Schema =>
    kind.ids.of === "numeric"
      ? {
          type: "array",
          minItems: 1,
          items: { type: "string", pattern: "^[0-9]+$" },
          description: "Numeric strings (spec, G5).",
        }
      : { type: "array", items: { $ref: "#/components/schemas/Id" }, minItems: 1 };
  const option = (kind: TargetingOptionKind): Schema => ({
    type: "object",
    properties: {
      [kind.ids.name]: idList(kind),
      ...(kind.exclude ? { exclude: { type: "boolean", default: false } } : {}),
    },
    required: [kind.ids.name],
    additionalProperties: false,
    ...(kind.exclude ? {} : { description: "No exclude (G5)." }),
  });
  return {
    type: "object",
    properties: Object.fromEntries(TARGETING_OPTIONS.map((kind) => [kind.member, option(kind)])),
    additionalProperties: false,
    minProperties: 1,
    description: "Spec; each set holds at least one option member and each id list is non-empty (G5).",
    "x-gap": "G5",
  };
}

/**
 * `$defs/dialect` of schemas/doohctl.schema.json: each key of `DIALECT_KEYS` with its gap
 * decision, what it adapts and its default, typed only. What a value may be (a path, a
 * member name, one parameter) is judged by `parseDialect` alone, so no pattern is copied here.
 */
export function configDialectSchema(): Schema {
  const value = (key: DialectKey): Schema => {
    const fallback = dialectValue(DEFAULT_DIALECT, key.key);
    return {
      description: `${key.gap}: ${key.adapts}. Default: ${fallback === null ? "none (null)" : `\`${fallback}\``}.`,
      type: key.kind === "member-or-null" ? ["string", "null"] : "string",
    };
  };
  const properties: Record<string, Schema> = {};
  for (const key of DIALECT_KEYS) {
    const [group, member] = key.key.split(".") as [string, string | undefined];
    if (member === undefined) {
      properties[group] = value(key);
      continue;
    }
    if (properties[group] === undefined) {
      const keys = DIALECT_KEYS.filter((k) => k.key.startsWith(`${group}.`));
      properties[group] = {
        description: `${key.gap}: ${keys.map((k) => k.key.slice(group.length + 1)).join(", ")}; each optional.`,
        // Written with nothing under it (a suggested block, docs/doctor.md): its defaults.
        type: ["object", "null"],
        additionalProperties: false,
        properties: {},
      };
    }
    const node = properties[group] as { properties: Record<string, Schema> };
    node.properties[member] = value(key);
  }
  return {
    title: "Dialect",
    description:
      'How this DSP answers where the specification leaves a fact "not shown" (docs/assumptions.md): each key optional, defaulting to its gap decision. Paths are under the DSP base path of the same origin (`/` then plain segments; `{id}` where the campaign id goes), never a URL; members are JSON member names (letters, digits, `_`, `-`, `.`); the progress parameter is one `name=value`; written with nothing under it, every key is its default. `doohctl validate` says which keys differ from the defaults; `doohctl doctor` proposes the block it can establish.',
    type: ["object", "null"],
    additionalProperties: false,
    properties,
  };
}

/** The dialect part: its path in the config schema, and what it is. */
export const DIALECT_SCHEMA_PART = {
  file: "schemas/doohctl.schema.json",
  path: ["$defs", "dialect"],
  part: configDialectSchema,
} as const;

const root = fileURLToPath(new URL(import.meta.url.includes("/dist/") ? "../../" : "../", import.meta.url));

/** The schema files this script writes, each with the path of its part and what the part is. */
export const TARGETING_SCHEMA_FILES = [
  {
    file: "schemas/doohctl.schema.json",
    path: ["$defs", "targeting_option_set"],
    part: configOptionSetSchema,
  },
  {
    file: "schemas/dsp-api.openapi.json",
    path: ["components", "schemas", "TargetingOptionSet"],
    part: contractOptionSetSchema,
  },
] as const;

/**
 * The resource parts: each the path of a schema and what it becomes, given what it is now
 * (the members no table describes stay as they are).
 */
export const RESOURCE_SCHEMA_PARTS: ReadonlyArray<{
  file: string;
  path: readonly string[];
  part: (existing: Schema) => Schema;
}> = Object.values(RESOURCES as Record<string, ResourceTable>).flatMap((table) => [
  {
    file: "schemas/doohctl.schema.json",
    path: ["$defs", table.config],
    part: (existing: Schema) => configResourceSchema(table, existing),
  },
  ...[
    table.contract.read,
    ...table.contract.patch,
    ...(table.contract.create === undefined ? [] : [table.contract.create]),
  ].map((name) => ({
    file: "schemas/dsp-api.openapi.json",
    path: ["components", "schemas", name],
    part: (existing: Schema) => contractResourceSchema(table, name, existing),
  })),
]);

export const SEED_SCHEMA_FILE = "schemas/emulator-seed.schema.json";

/** `text` with the JSON value at `path` replaced by `value`; the rest of the text as it was. */
export function splice(text: string, path: readonly string[], value: unknown): string {
  const node = parseDocument(text).getIn(path, true) as { range?: [number, number, number] } | undefined;
  if (node?.range === undefined) throw new Error(`${path.join("/")} not found`);
  const [start, end] = node.range;
  const indent = /^ */.exec(text.slice(text.lastIndexOf("\n", start) + 1, start))?.[0] ?? "";
  return `${text.slice(0, start)}${JSON.stringify(value, null, 2).replace(/\n/g, `\n${indent}`)}${text.slice(end)}`;
}

function main(): void {
  const written: string[] = [];
  for (const { file, path, part } of TARGETING_SCHEMA_FILES) {
    const at = `${root}${file}`;
    writeFileSync(at, splice(readFileSync(at, "utf8"), path, part()));
    written.push(at);
  }
  for (const { file, path, part } of RESOURCE_SCHEMA_PARTS) {
    const at = `${root}${file}`;
    const text = readFileSync(at, "utf8");
    const existing = path.reduce<Schema>((node, key) => node[key] as Schema, JSON.parse(text) as Schema);
    writeFileSync(at, splice(text, path, part(existing)));
    if (!written.includes(at)) written.push(at);
  }
  {
    const { file, path, part } = DIALECT_SCHEMA_PART;
    const at = `${root}${file}`;
    writeFileSync(at, splice(readFileSync(at, "utf8"), path, part()));
  }
  const seed = `${root}${SEED_SCHEMA_FILE}`;
  writeFileSync(seed, `${JSON.stringify(SEED_SCHEMA, null, 2)}\n`);
  written.push(seed);
  // The house format (short arrays on one line), as `npx biome check --write` leaves it.
  execFileSync("npx", ["biome", "format", "--write", ...written], { cwd: root, stdio: "inherit" });
  const config = JSON.parse(readFileSync(`${root}schemas/doohctl.schema.json`, "utf8"));
  writeFileSync(configDocsPath(), renderConfigDocs(config));
  // The validators a run uses are compiled from these schemas (scripts/gen-validators.ts).
  const validators = writeGeneratedValidators();
  process.stdout.write(`wrote ${[...written, configDocsPath(), ...validators].join(", ")}\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
