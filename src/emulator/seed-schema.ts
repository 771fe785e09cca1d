/**
 * The JSON Schema of an emulator seed, written out as `schemas/emulator-seed.schema.json` (a test
 * keeps them equal); its option members are the model's table (src/model/targeting-members.ts).
 */
import { DEFAULT_DIALECT, DIALECT_KEYS, type DialectValueKind, dialectValue } from "../model/dialect.js";
import { TARGETING_OPTIONS, type TargetingOptionKind } from "../model/targeting-members.js";
import {
  CAMPAIGN_MEMBERS,
  INSERTION_ORDER_MEMBERS,
  type Member,
  type MemberKind,
  type Members,
  memberNames,
} from "./members.js";

const id = { type: "string", pattern: "^[0-9]{1,18}$" };
const ids = { type: "array", items: { type: "string", minLength: 1 } };
const time = {
  type: "string",
  pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$",
};
const money = {
  type: "object",
  required: ["currency_code", "units"],
  additionalProperties: false,
  properties: {
    currency_code: { type: "string", pattern: "^[A-Z]{3}$" },
    units: { type: "string", pattern: "^-?(0|[1-9][0-9]*)$" },
    nanos: { type: "integer", minimum: -999999999, maximum: 999999999 },
  },
};
const named = {
  type: "object",
  required: ["id", "name"],
  additionalProperties: false,
  properties: { id, name: { type: "string", minLength: 1, maxLength: 200 } },
};
/** Each kind's schema (src/emulator/members.ts). */
const KIND: Record<MemberKind, Record<string, unknown>> = {
  id,
  name: { type: "string", minLength: 1, maxLength: 200 },
  text: { type: "string", maxLength: 100 },
  boolean: { type: "boolean" },
  time,
  count: { type: "integer", minimum: 0 },
  money,
  opaque: { type: "object" },
};

/** A seeded item of a resource, from its table: what a seed may leave out is what has a value then. */
function itemSchema(members: Members) {
  const properties: Record<string, unknown> = {};
  for (const [name, m] of Object.entries(members)) {
    const schema = KIND[m.kind!];
    if (m.derived !== undefined) properties[name] = { ...schema, description: m.derived };
    else if (!m.nullable) properties[name] = schema;
    else if (typeof schema.type === "string" && schema !== money)
      properties[name] = { ...schema, type: [schema.type, "null"] };
    else properties[name] = { oneOf: [schema, { type: "null" }] };
  }
  const optional = (m: Member) => m.derived !== undefined || m.nullable || m.seedAbsent !== undefined;
  return {
    type: "object",
    required: memberNames(members, (m) => !optional(m)),
    additionalProperties: false,
    properties,
  };
}

const option = ({ ids: list, exclude }: TargetingOptionKind) => ({
  type: "object",
  required: [list.name],
  additionalProperties: false,
  properties: { [list.name]: { ...ids, minItems: 1 }, ...(exclude ? { exclude: { type: "boolean" } } : {}) },
});

/** One seeded option set: each member as the emulator's table of kinds has it. */
export const SEED_OPTION_SET = {
  type: "object",
  minProperties: 1,
  additionalProperties: false,
  properties: Object.fromEntries(TARGETING_OPTIONS.map((kind) => [kind.member, option(kind)])),
};

const DIALECT_VALUE: Record<DialectValueKind, { type: string | string[] }> = {
  path: { type: "string" },
  "path-with-id": { type: "string" },
  member: { type: "string" },
  "member-or-null": { type: ["string", "null"] },
  parameter: { type: "string" },
};

/** The seed's `dialect` from the model's keys (src/model/dialect.ts); `parseDialect` checks values. */
function dialectSchema(): Record<string, unknown> {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const { key, gap, kind, adapts } of DIALECT_KEYS) {
    const [group, name] = key.split(".") as [string, string | undefined];
    const fallback = JSON.stringify(dialectValue(DEFAULT_DIALECT, key));
    const value = { ...DIALECT_VALUE[kind], description: `${gap}: ${adapts}. Default ${fallback}.` };
    if (name === undefined) properties[group] = value;
    else {
      properties[group] ??= { type: "object", additionalProperties: false, properties: {} };
      (properties[group].properties as Record<string, unknown>)[name] = value;
    }
  }
  return {
    type: "object",
    additionalProperties: false,
    description:
      "The dialect to serve, written as a config's connection.dialect; --dialect wins over it (docs/emulator.md, Dialects).",
    properties,
  };
}

export const SEED_SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  $id: "https://doohctl.dev/schemas/emulator-seed.schema.json",
  title: "doohctl emulator seed",
  description:
    "The initial state of `doohctl emulator --seed FILE`: users, and every resource in the DSP API's own wire shape (docs/emulator.md).",
  type: "object",
  additionalProperties: false,
  properties: {
    $schema: { type: "string", description: "Path or URL of this schema, for editors." },
    today: {
      type: "string",
      pattern: "^\\d{4}-\\d{2}-\\d{2}$",
      description:
        "The day (YYYY-MM-DD, UTC) this seed's dates are written for: the emulator moves every date by the whole days from it to the day it starts on. Without it, the dates stay as written.",
    },
    dialect: dialectSchema(),
    users: {
      type: "array",
      items: {
        type: "object",
        required: ["email", "password", "account_id"],
        additionalProperties: false,
        properties: {
          email: { type: "string", minLength: 3 },
          password: { type: "string", minLength: 1 },
          account_id: { type: "string", minLength: 1 },
          network_id: id,
        },
      },
    },
    advertisers: { type: "array", items: named },
    creative_categories: { type: "array", items: named },
    networks: { type: "array", items: named },
    insertion_orders: { type: "array", items: itemSchema(INSERTION_ORDER_MEMBERS) },
    campaigns: { type: "array", items: itemSchema(CAMPAIGN_MEMBERS) },
    targetings: {
      type: "object",
      propertyNames: id,
      additionalProperties: {
        type: "array",
        items: SEED_OPTION_SET,
      },
    },
    creatives: {
      type: "array",
      items: {
        type: "object",
        required: ["id", "advertiser_id", "name", "create_time"],
        additionalProperties: false,
        properties: {
          id,
          advertiser_id: id,
          name: { type: "string", minLength: 1, maxLength: 200 },
          create_time: time,
          seat_id: {
            type: "string",
            minLength: 1,
            description: "The account (seat) the creative belongs to; default: the first user's account_id.",
          },
          campaign_ids: ids,
          insertion_order_ids: ids,
          category_ids: ids,
          thumbnail_url: { type: "string" },
          pixel_url: { type: "string" },
          duration_ms: { type: "integer", minimum: 0, maximum: 2147483647 },
          archived: { type: "boolean" },
          type: {
            enum: ["NONE", "DYNAMIC", "SAGE_AND_ARCHER_DYNAMIC", "IMAGE", "VIDEO", "AUDIO", "UNKNOWN"],
          },
          requires_audio: { type: "boolean" },
          processing_status: { enum: ["PROCESSING", "PROCESSED", "FAILED"] },
          asset: {
            oneOf: [
              { type: "null" },
              {
                type: "object",
                required: ["url", "height", "width", "format", "file_size_bytes"],
                additionalProperties: false,
                properties: {
                  url: { type: "string", minLength: 1 },
                  height: { type: "integer", minimum: 0 },
                  width: { type: "integer", minimum: 0 },
                  format: { type: "string", minLength: 1 },
                  file_size_bytes: { type: "integer", minimum: 0 },
                },
              },
            ],
          },
          audits: {
            type: "array",
            items: {
              type: "object",
              required: ["network_id", "status", "message", "last_reviewed"],
              additionalProperties: false,
              properties: {
                network_id: id,
                status: { enum: ["PENDING", "APPROVED", "DENIED"] },
                message: { type: "string" },
                last_reviewed: time,
                category_ids: ids,
                tag_ids: ids,
                create_time: time,
                last_reviewer: { type: "string" },
              },
            },
          },
        },
      },
    },
  },
} as const;
