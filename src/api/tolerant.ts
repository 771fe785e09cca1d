/**
 * The tolerant view of the contract (G14, docs/assumptions.md#g14): the client checks an
 * answer against a view of schemas/dsp-api.openapi.json derived at load time, and keeps only
 * what the contract names. The document itself stays strict: the emulator's tests check its
 * answers against it as written.
 *
 * The view differs from the document in two ways: an object may hold members the contract
 * does not name (they are dropped from what the client keeps, so never sent back in a
 * write), and a member doohctl does not decide with (members.ts) may be absent or `null`.
 * A targeting option set is the exception to dropping: a member or field doohctl does not
 * know is kept as a mark (`unknown_members`), since a PUT that omits it would remove it and
 * broaden delivery (G14, G5).
 */
import { OPTION_MEMBERS } from "../model/targeting.js";
import { Time } from "../model/time.js";
import { unsetAllowed } from "./members.js";

type Schema = Record<string, unknown>;
type Schemas = Record<string, Schema>;

const REF = "#/components/schemas/";
const refName = (schema: Schema) =>
  typeof schema.$ref === "string" && schema.$ref.startsWith(REF) ? schema.$ref.slice(REF.length) : undefined;

/** Inline object schemas lose `additionalProperties: false`, all the way down. */
function opened(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(opened);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema as Schema)) {
    if (key === "additionalProperties" && value === false) continue;
    out[key] =
      key === "properties"
        ? Object.fromEntries(Object.entries(value as Schema).map(([k, v]) => [k, opened(v)]))
        : opened(value);
  }
  return out;
}

/** One named schema of the tolerant view. */
function tolerantSchema(name: string, schema: Schema): Schema {
  const out = opened(schema) as Schema;
  const properties = out.properties as Schema | undefined;
  if (!properties) return out;
  const required = Array.isArray(out.required) ? (out.required as string[]) : [];
  out.required = required.filter((m) => !unsetAllowed(name, m));
  for (const member of Object.keys(properties)) {
    if (unsetAllowed(name, member)) properties[member] = { anyOf: [properties[member], { type: "null" }] };
  }
  return out;
}

/** The whole document with each schema of `components/schemas` in its tolerant view. */
export function tolerantDocument<T extends { components: { schemas?: Schemas } }>(doc: T): T {
  const schemas = doc.components.schemas ?? {};
  const tolerant: Schemas = {};
  for (const [name, schema] of Object.entries(schemas)) tolerant[name] = tolerantSchema(name, schema);
  return { ...doc, components: { ...doc.components, schemas: tolerant } };
}

/** What an unset member reads as: `null` where the contract allows it, else an empty value. */
function unsetValue(schemas: Schemas, schema: Schema): unknown {
  const name = refName(schema);
  const target = name !== undefined ? (schemas[name] ?? {}) : schema;
  const branches = (target.oneOf ?? target.anyOf) as Schema[] | undefined;
  const types = Array.isArray(target.type) ? target.type : [target.type];
  if (types.includes("null") || branches?.some((b) => b.type === "null")) return null;
  if (Array.isArray(target.enum)) return target.enum.includes("UNKNOWN") ? "UNKNOWN" : undefined;
  if (target.format === "date-time") return undefined; // no instant stands for "unset": leave it out
  switch (types[0]) {
    case "string":
      return "";
    case "array":
      return [];
    case "integer":
    case "number":
      return 0;
    case "boolean":
      return false;
    default:
      return undefined;
  }
}

/** The schemas, and the members seen that the contract does not name (`Schema.member`). */
interface Keeping {
  schemas: Schemas;
  unknown: Set<string>;
}

/** A live option set as kept: its known members, and the mark of what it holds besides. */
function keepTargetingSet(k: Keeping, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const unknown: string[] = [];
  const known = new Map<string, string>(OPTION_MEMBERS);
  for (const [member, option] of Object.entries(value)) {
    const idsKey = known.get(member);
    if (idsKey === undefined) {
      if (option !== null) unknown.push(member);
      continue;
    }
    const inner = option as Record<string, unknown>;
    const kept: Record<string, unknown> = { [idsKey]: [...(inner[idsKey] as string[])] };
    for (const [field, v] of Object.entries(inner)) {
      if (field === idsKey) continue;
      if (field === "exclude" && member !== "deal_targeting_option") kept.exclude = v;
      else if (v !== null) unknown.push(`${member}.${field}`);
    }
    out[member] = kept;
  }
  if (unknown.length > 0) out.unknown_members = unknown.sort();
  for (const member of unknown) k.unknown.add(`TargetingOptionSet.${member}`);
  return out;
}

function keepObject(
  k: Keeping,
  name: string | undefined,
  schema: Schema,
  value: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties = schema.properties as Schemas;
  for (const member of Object.keys(value)) {
    if (!Object.hasOwn(properties, member)) k.unknown.add(`${name ?? "(object)"}.${member}`);
  }
  for (const [member, sub] of Object.entries(properties)) {
    const v = value[member];
    if (v === undefined || v === null) {
      if (name !== undefined && unsetAllowed(name, member)) {
        const unset = unsetValue(k.schemas, sub);
        if (unset !== undefined) out[member] = unset;
      } else if (v === null) {
        out[member] = null; // the contract allows null here (the answer passed the view)
      }
      continue;
    }
    out[member] = keepValue(k, sub, v);
  }
  return out;
}

function keepValue(k: Keeping, schema: Schema, value: unknown): unknown {
  const name = refName(schema);
  // Times are kept canonical (time.ts): a live `...00.000000Z` is `...00Z`, as the config's is.
  if (typeof value === "string" && name === "DateTime") return Time.parse(value);
  if (value === null || typeof value !== "object") return value;
  if (name !== undefined) {
    if (name === "TargetingOptionSet") return keepTargetingSet(k, value as Record<string, unknown>);
    const target = k.schemas[name] ?? {};
    return target.properties
      ? keepObject(k, name, target, value as Record<string, unknown>)
      : keepValue(k, target, value);
  }
  const branches = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (branches) {
    const branch = branches.find((b) => b.type !== "null");
    return branch ? keepValue(k, branch, value) : value;
  }
  if (Array.isArray(value)) return value.map((item) => keepValue(k, (schema.items ?? {}) as Schema, item));
  if (schema.properties) return keepObject(k, undefined, schema, value as Record<string, unknown>);
  return structuredClone(value); // opaque (pacing, G2): kept as given
}

/**
 * What the client keeps of an answer that passed the tolerant view of `schemaName`: the
 * members the contract names, unset ones read as `null` or empty, times canonical (a time
 * that cannot be kept exactly is a TimeError), unknown targeting members marked.
 */
export function keptAnswer(
  schemas: Schemas,
  schemaName: string,
  body: unknown,
): { kept: unknown; unknown: string[] } {
  const k: Keeping = { schemas, unknown: new Set() };
  const kept = keepValue(k, { $ref: `${REF}${schemaName}` }, body);
  return { kept, unknown: [...k.unknown].sort() };
}
