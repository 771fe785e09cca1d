/**
 * The JSON schema fragments of a resource's members, from their kinds (resource-fields.ts), for
 * the config and the contract: scripts/gen-targeting-schemas.ts writes them, doctor reads them.
 */
import type { FieldKind, FieldSpec, ResourceTable } from "./resource-fields.js";
import { withFlag } from "./resource-fields.js";

type Schema = Record<string, unknown>;

const orNull = (spec: FieldSpec, type: string) => (spec.nullable ? [type, "null"] : type);
const nullableRef = (spec: FieldSpec, ref: string, key: "anyOf" | "oneOf"): Schema =>
  spec.nullable ? { [key]: [{ $ref: ref }, { type: "null" }] } : { $ref: ref };

/** Kinds written as a named schema (config `$defs`, contract `components/schemas`), else as a JSON type. */
const CONFIG_REFS: Partial<Record<FieldKind, string>> = {
  time: "time",
  money: "money",
  url: "http_url",
  id: "id",
};
const CONTRACT_REFS: Partial<Record<FieldKind, string>> = { time: "DateTime", money: "Money", id: "Id" };
const TYPES: Partial<Record<FieldKind, string>> = {
  integer: "integer",
  boolean: "boolean",
  text: "string",
  url: "string",
  opaque: "object",
};
/** An integer's bounds: never negative; in a config, what a JSON number carries exactly (2^53 - 1). */
const bounds = (spec: FieldSpec, max: object) => (spec.kind === "integer" ? { minimum: 0, ...max } : {});

/** A `config` member's fragment of schemas/doohctl.schema.json. */
export function configFieldSchema(spec: FieldSpec): Schema {
  const base = { description: spec.docs?.text ?? spec.name };
  const examples = spec.docs?.example === undefined ? {} : { examples: [spec.docs.example] };
  const ref = CONFIG_REFS[spec.kind];
  if (ref !== undefined) return { ...base, ...nullableRef(spec, `#/$defs/${ref}`, "anyOf") };
  if (spec.kind === "id_list") return { ...base, type: "array", items: { $ref: "#/$defs/id" }, ...examples };
  const type = orNull(spec, TYPES[spec.kind] ?? "string");
  return { ...base, type, ...bounds(spec, { maximum: 9007199254740991 }), ...examples };
}

const REF = "#/components/schemas/";

/** A member's fragment of schemas/dsp-api.openapi.json, as an answer holds it or a write sends it. */
export function contractFieldSchema(spec: FieldSpec, use: "read" | "write"): Schema {
  const description = spec.contract?.[use];
  const ref = spec.contract?.schema ?? CONTRACT_REFS[spec.kind];
  const schema: Schema =
    ref !== undefined
      ? nullableRef(spec, `${REF}${ref}`, "oneOf")
      : spec.kind === "id_list"
        ? { type: "array", items: { $ref: `${REF}Id` } }
        : {
            type: orNull(spec, TYPES[spec.kind] ?? "string"),
            ...bounds(spec, {}),
            ...(spec.kind === "url" && use === "write" ? { format: "uri" } : {}),
          };
  return description === undefined ? schema : { ...schema, description };
}

/** `existing` properties with `members`' fragments: a new one after the table's last one there. */
function withMembers(
  existing: Schema,
  members: readonly FieldSpec[],
  fragment: (f: FieldSpec) => Schema,
): Schema {
  const names = new Set(members.map((m) => m.name));
  const keys = Object.keys(existing);
  let at = keys.reduce((last, key, i) => (names.has(key) ? i + 1 : last), 0);
  for (const member of members) {
    if (keys.includes(member.name)) continue;
    keys.splice(at, 0, member.name);
    at += 1;
  }
  const byName = new Map(members.map((m) => [m.name, m]));
  return Object.fromEntries(
    keys.map((key) => {
      const member = byName.get(key);
      return [key, member === undefined ? existing[key] : fragment(member)];
    }),
  );
}

/** `required` with `names` added where missing, in order. */
const requiring = (required: unknown, names: readonly string[]): string[] => {
  const list = Array.isArray(required) ? [...(required as string[])] : [];
  for (const name of names) if (!list.includes(name)) list.push(name);
  return list;
};

/** The `$defs` entry of a resource in the config schema, with its `config` members from the table. */
export function configResourceSchema(table: ResourceTable, existing: Schema): Schema {
  const properties = withMembers(
    (existing.properties ?? {}) as Schema,
    withFlag(table.fields, "config"),
    configFieldSchema,
  );
  return { ...existing, properties };
}

/**
 * A resource's contract schema with the table's members: all in its read schema (each required;
 * G14: members.ts says which may be unset), `update` ones in its PATCHes, `create` ones on create.
 */
export function contractResourceSchema(table: ResourceTable, name: string, existing: Schema): Schema {
  const { read, patch, create } = table.contract;
  const props = (existing.properties ?? {}) as Schema;
  if (name === read) {
    const properties = withMembers(props, table.fields, (f) => contractFieldSchema(f, "read"));
    return {
      ...existing,
      properties,
      required: requiring(
        existing.required,
        table.fields.map((f) => f.name),
      ),
    };
  }
  if (patch.includes(name)) {
    const properties = withMembers(props, withFlag(table.fields, "update"), (f) =>
      contractFieldSchema(f, "write"),
    );
    return { ...existing, properties };
  }
  if (name === create) {
    const properties = withMembers(props, withFlag(table.fields, "create"), (f) =>
      contractFieldSchema(f, "write"),
    );
    const required = requiring(
      existing.required,
      withFlag(table.fields, "required").map((f) => f.name),
    );
    return { ...existing, properties, required };
  }
  throw new Error(`${name} is not a contract schema of ${read}`);
}
