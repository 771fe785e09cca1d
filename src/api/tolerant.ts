/**
 * The tolerant view of the contract (G14, docs/assumptions.md#g14), while the document stays
 * strict: an object may hold members the contract does not name (dropped from what the client
 * keeps, so never sent back), and a member doohctl does not decide with (members.ts) may be
 * absent or `null`. A targeting set keeps what it does not know as a mark (`unknown_members`):
 * a PUT that omitted it would remove it and broaden delivery (G14, G5).
 */
import { targetingOption } from "../model/targeting-members.js";
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

/** Members seen that the contract does not name (`Schema.member`); none unless asked (it costs strings). */
type Unknown = Set<string> | undefined;

/** Keeps one value of a schema (compiled once per schema: answers hold 10,000 campaigns). */
type Keeper = (value: unknown, unknown: Unknown) => unknown;

/** A live option set as kept: its known members, and the mark of what it holds besides. */
function keepTargetingSet(value: Record<string, unknown>, seen: Unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [member, option] of Object.entries(value)) {
    const kind = targetingOption(member);
    if (kind === undefined) {
      if (option !== null) unknown.push(member);
      continue;
    }
    const inner = option as Record<string, unknown>;
    const idsKey = kind.ids.name;
    const kept: Record<string, unknown> = { [idsKey]: [...(inner[idsKey] as string[])] };
    for (const [field, v] of Object.entries(inner)) {
      if (field === idsKey) continue;
      if (field === "exclude" && kind.exclude) kept.exclude = v;
      else if (v !== null) unknown.push(`${member}.${field}`);
    }
    out[member] = kept;
  }
  if (unknown.length > 0) out.unknown_members = unknown.sort();
  for (const member of unknown) seen?.add(`TargetingOptionSet.${member}`);
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

class Compiler {
  private readonly named = new Map<string, Keeper>();
  constructor(private readonly schemas: Schemas) {}

  /** The keeper of a named schema; recursive references resolve lazily. */
  keeperOf(name: string): Keeper {
    let keeper = this.named.get(name);
    if (keeper === undefined) {
      let compiled: Keeper | undefined;
      keeper = (value, unknown) => {
        compiled ??= this.compileNamed(name);
        return compiled(value, unknown);
      };
      this.named.set(name, keeper);
    }
    return keeper;
  }

  private compileNamed(name: string): Keeper {
    // Times are kept canonical (time.ts): a live `...00.000000Z` is `...00Z`, as a config's is.
    if (name === "DateTime") return (v) => (typeof v === "string" ? Time.parse(v) : v);
    if (name === "TargetingOptionSet") return (v, u) => (isObject(v) ? keepTargetingSet(v, u) : v);
    const target = this.schemas[name] ?? {};
    return target.properties ? this.object(name, target) : this.compile(target);
  }

  compile(schema: Schema): Keeper {
    const name = refName(schema);
    if (name !== undefined) return this.keeperOf(name);
    const branches = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
    if (branches) {
      const branch = branches.find((b) => b.type !== "null");
      if (!branch) return (v) => v;
      const keep = this.compile(branch);
      return (v, u) => (v === null ? v : keep(v, u));
    }
    if (schema.type === "array" || schema.items !== undefined) {
      const item = this.compile((schema.items ?? {}) as Schema);
      return (v, u) => (Array.isArray(v) ? v.map((x) => item(x, u)) : v);
    }
    if (schema.properties) return this.object(undefined, schema);
    // Opaque (pacing, G2): kept as given; the body was parsed for this read alone.
    return (v) => v;
  }

  private object(name: string | undefined, schema: Schema): Keeper {
    const properties = schema.properties as Schemas;
    const members = Object.entries(properties).map(([member, sub]) => {
      const unset =
        name !== undefined && unsetAllowed(name, member) ? unsetValue(this.schemas, sub) : undefined;
      return {
        member,
        keep: this.compile(sub),
        allowsUnset: name !== undefined && unsetAllowed(name, member),
        // A fresh empty list each time: what the caller keeps is its own.
        unset: Array.isArray(unset) ? () => [] : () => unset,
      };
    });
    const label = name ?? "(object)";
    return (value, unknown) => {
      if (!isObject(value) || Array.isArray(value)) return value;
      if (unknown !== undefined) {
        for (const key in value) if (!Object.hasOwn(properties, key)) unknown.add(`${label}.${key}`);
      }
      const out: Record<string, unknown> = {};
      for (const m of members) {
        const v = value[m.member];
        if (v === undefined || v === null) {
          if (m.allowsUnset) {
            const unset = m.unset();
            if (unset !== undefined) out[m.member] = unset;
          } else if (v === null) {
            out[m.member] = null; // the contract allows null here (the answer passed the view)
          }
          continue;
        }
        out[m.member] = m.keep(v, unknown);
      }
      return out;
    };
  }
}

const compilers = new WeakMap<Schemas, Compiler>();

/**
 * What the client keeps of an answer that passed the view of `schemaName`: the named members,
 * unset ones as `null` or empty, times canonical (else a TimeError), unknown targeting members
 * marked; and the members it held that the contract does not name.
 */
export function keptAnswer(
  schemas: Schemas,
  schemaName: string,
  body: unknown,
  options: { collectUnknown?: boolean } = {},
): { kept: unknown; unknown: string[] } {
  let compiler = compilers.get(schemas);
  if (compiler === undefined) {
    compiler = new Compiler(schemas);
    compilers.set(schemas, compiler);
  }
  const unknown: Unknown = options.collectUnknown ? new Set() : undefined;
  const kept = compiler.keeperOf(schemaName)(body, unknown);
  return { kept, unknown: unknown ? [...unknown].sort() : [] };
}
