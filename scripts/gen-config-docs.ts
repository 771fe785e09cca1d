/**
 * Generates docs/config.md, the configuration reference, from the descriptions in
 * schemas/doohctl.schema.json, so that the editor help and the reference never disagree.
 * Run after a schema change: `npm run build && node dist/scripts/gen-config-docs.js`.
 * test/config/docs.test.ts fails when docs/config.md is out of date.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { configSchema } from "../src/config/schema-file.js";

type Schema = {
  title?: string;
  description?: string;
  type?: string | string[];
  $ref?: string;
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  then?: Schema;
  else?: Schema;
  examples?: unknown[];
  pattern?: string;
  minItems?: number;
  minimum?: number;
};

const SECTIONS: Array<{ heading: string; path: string; def?: string }> = [
  { heading: "Top level", path: "" },
  { heading: "connection", path: "connection", def: "connection" },
  { heading: "connection.dialect", path: "connection.dialect", def: "dialect" },
  { heading: "policy", path: "policy", def: "policy" },
  { heading: "insertion_orders[]", path: "insertion_orders[]", def: "insertion_order" },
  { heading: "insertion_orders[].policy", path: "insertion_orders[].policy", def: "insertion_order_policy" },
  { heading: "insertion_orders[].campaigns[]", path: "insertion_orders[].campaigns[]", def: "campaign" },
  {
    heading: "insertion_orders[].campaigns[].targetings[]",
    path: "insertion_orders[].campaigns[].targetings[]",
    def: "targeting_option_set",
  },
  { heading: "creatives[]", path: "creatives[]", def: "creative" },
];

const VALUE_TYPES = [
  "id",
  "id_list",
  "venue_type_id",
  "venue_type_id_list",
  "time",
  "money",
  "rate_window",
  "http_url",
  "policy_money_limits",
  "policy_percent_limit",
  "policy_action_only",
];

export function renderConfigDocs(schema: Schema & { $defs: Record<string, Schema> }): string {
  const defs = schema.$defs;
  const out: string[] = [
    "<!-- Generated from schemas/doohctl.schema.json by scripts/gen-config-docs.ts: edit the schema, not this file. -->",
    "# Configuration reference",
    "",
    schema.description ?? "",
    "",
    "Files are YAML 1.2. Give `doohctl` one file or a directory (its `*.yaml` and `*.yml` files are read in",
    "name order and merged); the default is `doohctl.yaml`. Start each file with",
    "`# yaml-language-server: $schema=<path or URL of doohctl.schema.json>` for completion and",
    "these descriptions in your editor; `doohctl schema` prints the schema. See also",
    "[validate.md](validate.md) for the error messages and how to read them.",
    "",
  ];
  for (const section of SECTIONS) {
    const node = section.def === undefined ? schema : defs[section.def]!;
    out.push(section.def === undefined ? `## ${section.heading}` : `## \`${section.heading}\``, "");
    if (section.def !== undefined && node.description) out.push(node.description, "");
    out.push("| key | type | required | description |", "|---|---|---|---|");
    const prefix = section.path === "" ? "" : `${section.path}.`;
    for (const [key, property] of Object.entries(node.properties ?? {})) {
      const required = node.required?.includes(key) ? "yes" : "";
      out.push(
        `| \`${prefix}${key}\` | ${typeOf(property, defs)} | ${required} | ${cell(describe(property, defs))} |`,
      );
      for (const [sub, subProperty] of Object.entries(property.properties ?? {})) {
        out.push(
          `| \`${prefix}${key}.${sub}\` | ${typeOf(subProperty, defs)} | ${property.required?.includes(sub) ? "yes" : ""} | ${cell(describe(subProperty, defs))} |`,
        );
      }
    }
    for (const [pattern, property] of Object.entries(node.patternProperties ?? {})) {
      out.push(`| keys matching \`${pattern}\` | any | | ${cell(property.description ?? "")} |`);
    }
    out.push("");
  }
  out.push("## Value types", "");
  for (const name of VALUE_TYPES) {
    const def = defs[name]!;
    out.push(`### ${def.title ?? name}`, "", def.description ?? "", "");
    const examples = def.examples ?? def.anyOf?.flatMap((branch) => branch.examples ?? []) ?? [];
    if (examples.length > 0)
      out.push(`Examples: ${examples.map((e) => `\`${JSON.stringify(e)}\``).join(", ")}`, "");
  }
  return `${out.join("\n").trimEnd()}\n`;
}

function refName(schema: Schema): string | undefined {
  return schema.$ref?.replace("#/$defs/", "");
}

function typeOf(schema: Schema, defs: Record<string, Schema>): string {
  const ref = refName(schema);
  if (ref !== undefined) {
    const def = defs[ref]!;
    return def.title ? def.title.toLowerCase() : ref.replace(/_/g, " ");
  }
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (schema.enum) return schema.enum.map((v) => `\`${String(v)}\``).join(" \\| ");
  if (schema.anyOf) return schema.anyOf.map((branch) => typeOf(branch, defs)).join(" or ");
  if (schema.then && schema.else) return `${typeOf(schema.then, defs)} or ${typeOf(schema.else, defs)}`;
  if (schema.type === "array" && schema.items) return `list of ${typeOf(schema.items, defs)}`;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? "any"];
  return types.map((t) => (t === "object" ? "map" : t)).join(" or ");
}

function describe(schema: Schema, defs: Record<string, Schema>): string {
  let text = schema.description ?? "";
  const ref = refName(schema);
  if (text === "" && ref !== undefined) text = defs[ref]?.description ?? "";
  if (schema.examples && schema.examples.length > 0) {
    text += ` Example: ${schema.examples.map((e) => `\`${JSON.stringify(e)}\``).join(", ")}.`;
  }
  return text;
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

const DOCS_PATH = fileURLToPath(
  new URL(import.meta.url.includes("/dist/") ? "../../docs/config.md" : "../docs/config.md", import.meta.url),
);

export function configDocsPath(): string {
  return DOCS_PATH;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(
    DOCS_PATH,
    renderConfigDocs(configSchema() as unknown as Schema & { $defs: Record<string, Schema> }),
  );
  process.stdout.write(`wrote ${DOCS_PATH}\n`);
}
