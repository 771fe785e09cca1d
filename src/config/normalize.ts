/**
 * Stage 3: one schema-valid document -> the desired state (src/model/desired.ts), parsing the
 * leaves the schema cannot judge (calendar dates, money) and recording where each was written.
 */
import type {
  CampaignFields,
  ConnectionSettings,
  CreativeFields,
  DesiredCampaign,
  DesiredCreative,
  DesiredInsertionOrder,
  InsertionOrderFields,
  PolicyRules,
  SourceRef,
} from "../model/desired.js";
import type { Dialect } from "../model/dialect.js";
import { Money } from "../model/money.js";
import {
  CAMPAIGN_FIELDS,
  CREATIVE_FIELDS,
  type FieldSpec,
  INSERTION_ORDER_FIELDS,
  withFlag,
} from "../model/resource-fields.js";
import { sortedIds, Targeting } from "../model/targeting.js";
import { Time } from "../model/time.js";
import { normalizeDialect, otherTopKeys } from "./dialect.js";
import { unitsProblem } from "./explain.js";
import type { ConfigIssue } from "./issues.js";
import { normalizeConnection } from "./normalize-connection.js";
import { normalizePolicy } from "./normalize-policy.js";
import { normalizePacing } from "./pacing.js";
import { childPath } from "./path-text.js";
import { Places } from "./places.js";
import { idText, isMap, present, type Raw, targetingSet } from "./raw-values.js";
import type { SourceIndex } from "./source-index.js";

export interface NormalizedFile {
  connection?: {
    settings: ConnectionSettings;
    source: SourceRef;
    /** `connection.dialect` written as a path: the dialect file, relative to this file. */
    dialectFile?: { path: string; source: SourceRef };
  };
  /** A top-level `dialect:`, honoured only in the file `connection.dialect` names (dialect-file.ts). */
  dialect?: { dialect: Dialect | undefined; source: SourceRef; otherKeys: string[] };
  policy?: { rules: PolicyRules; source: SourceRef };
  insertionOrders: DesiredInsertionOrder[];
  creatives: DesiredCreative[];
}

/** The members each resource declares (resource-fields.ts); a test passes a table with one more. */
export interface DeclaredTables {
  insertionOrder: readonly FieldSpec[];
  campaign: readonly FieldSpec[];
  creative: readonly FieldSpec[];
}

const TABLES: DeclaredTables = {
  insertionOrder: INSERTION_ORDER_FIELDS,
  campaign: CAMPAIGN_FIELDS,
  creative: CREATIVE_FIELDS,
};

export function normalizeFile(
  doc: Raw,
  index: SourceIndex,
  tables: DeclaredTables = TABLES,
): { result: NormalizedFile; issues: ConfigIssue[] } {
  return new Normalizer(index, tables).file(doc);
}

class Normalizer {
  private readonly places: Places;

  constructor(
    index: SourceIndex,
    private readonly tables: DeclaredTables,
  ) {
    this.places = new Places(index);
  }

  file(doc: Raw): { result: NormalizedFile; issues: ConfigIssue[] } {
    const result: NormalizedFile = { insertionOrders: [], creatives: [] };
    if (doc.connection !== undefined) {
      const raw = doc.connection as Raw;
      result.connection = {
        settings: normalizeConnection(raw, "connection", this.places),
        source: this.places.ref(doc, "connection", "connection"),
        ...(typeof raw.dialect === "string"
          ? {
              dialectFile: {
                path: raw.dialect,
                source: this.places.ref(raw, "dialect", "connection.dialect"),
              },
            }
          : {}),
      };
    }
    if (isMap(doc.dialect) || doc.dialect === null) {
      const index = this.places.index;
      result.dialect = {
        dialect: normalizeDialect(doc.dialect ?? {}, "dialect", this.places),
        source: { file: index.file, ...index.ofKey(doc, "dialect"), path: "dialect" },
        otherKeys: otherTopKeys(doc),
      };
    }
    if (isMap(doc.policy)) {
      result.policy = {
        rules: normalizePolicy(doc.policy, "policy", this.places),
        source: this.places.ref(doc, "policy", "policy"),
      };
    }
    const ios = (doc.insertion_orders ?? []) as Raw[];
    // An item whose id the schema refused stays, under a placeholder, so the rules check the rest.
    ios.forEach((io, i) => {
      if (isMap(io)) result.insertionOrders.push(this.insertionOrder(io, ios, i));
    });
    const creatives = (doc.creatives ?? []) as Raw[];
    creatives.forEach((creative, i) => {
      if (creative?.id !== undefined) result.creatives.push(this.creative(creative, creatives, i));
    });
    return { result, issues: this.places.issues };
  }

  private insertionOrder(raw: Raw, list: Raw[], i: number): DesiredInsertionOrder {
    const at = `insertion_orders[${i}]`;
    const { fields, fieldSources } = this.declared<InsertionOrderFields>(this.tables.insertionOrder, raw, at);
    const campaigns = (raw.campaigns ?? []) as Raw[];
    const campaignsAt = childPath(at, "campaigns");
    return {
      id: raw.id === undefined ? this.places.unnamed("id", list, i, at) : idText(raw.id),
      fields,
      unmanagedCampaigns: raw.unmanaged_campaigns === "deactivate" ? "deactivate" : "ignore",
      ...(isMap(raw.policy)
        ? { policy: normalizePolicy(raw.policy, childPath(at, "policy"), this.places) }
        : {}),
      campaigns: campaigns.flatMap((c, j) =>
        isMap(c) ? [this.campaign(c, campaigns, j, `${campaignsAt}[${j}]`)] : [],
      ),
      source: this.places.ref(list, i, at),
      ...(raw.id === undefined ? {} : { idSource: this.places.ref(raw, "id", childPath(at, "id")) }),
      fieldSources,
    };
  }

  private campaign(raw: Raw, list: Raw[], j: number, at: string): DesiredCampaign {
    const { fields, fieldSources } = this.declared<CampaignFields>(this.tables.campaign, raw, at);
    const campaign: DesiredCampaign = {
      name: typeof raw.name === "string" ? raw.name : this.places.unnamed("name", list, j, at),
      fields,
      source: this.places.ref(list, j, at),
      fieldSources: fieldSources as DesiredCampaign["fieldSources"],
    };
    campaign.fieldSources.name = this.places.ref(raw, "name", childPath(at, "name"));
    if (raw.id !== undefined) {
      campaign.id = idText(raw.id);
      campaign.fieldSources.id = this.places.ref(raw, "id", childPath(at, "id"));
    }
    if (raw.targetings !== undefined) {
      const path = childPath(at, "targetings");
      const targetings = this.places.parsed({ parent: raw, key: "targetings", path }, "INVALID_VALUE", () =>
        Targeting.normalizeList(
          (raw.targetings as (Raw | undefined)[]).flatMap((set) => (set ? [targetingSet(set)] : [])),
        ),
      );
      if (targetings !== undefined) {
        campaign.targetings = targetings;
        campaign.fieldSources.targetings = this.places.ref(raw, "targetings", path);
      }
    }
    if (raw.creatives !== undefined) {
      campaign.creatives = sortedIds(present(raw.creatives as unknown[]).map(idText));
      campaign.fieldSources.creatives = this.places.ref(raw, "creatives", childPath(at, "creatives"));
    }
    return campaign;
  }

  private creative(raw: Raw, list: Raw[], i: number): DesiredCreative {
    const at = `creatives[${i}]`;
    return {
      id: idText(raw.id),
      ...this.declared<CreativeFields>(this.tables.creative, raw, at),
      source: this.places.ref(list, i, at),
      ...(raw.id === undefined ? {} : { idSource: this.places.ref(raw, "id", childPath(at, "id")) }),
    };
  }

  /** The `config` members of `table` (resource-fields.ts) that `raw` declares, and where each was written. */
  declared<F extends object>(
    table: readonly FieldSpec[],
    raw: Raw,
    at: string,
  ): { fields: F; fieldSources: Partial<Record<keyof F, SourceRef>> } {
    const fields: Record<string, unknown> = {};
    const fieldSources: Record<string, SourceRef> = {};
    for (const spec of withFlag(table, "config")) {
      const value = this.value(spec, raw, at);
      if (value === undefined) continue;
      fields[spec.name] = value;
      fieldSources[spec.name] = this.places.ref(raw, spec.name, childPath(at, spec.name));
    }
    return { fields: fields as F, fieldSources: fieldSources as Partial<Record<keyof F, SourceRef>> };
  }

  /** One declared value, by its kind; undefined when absent (or refused, and reported). */
  private value(spec: FieldSpec, raw: Raw, at: string): unknown {
    const value = raw[spec.name];
    if (value === undefined) return undefined;
    if (value === null) return spec.nullable ? null : undefined;
    switch (spec.kind) {
      case "time":
        return this.time(raw, spec.name, at);
      case "money":
        return this.money(raw, spec.name, at);
      case "opaque":
        return isMap(value) ? normalizePacing(value, childPath(at, spec.name), this.places) : undefined;
      case "id_list":
        return Array.isArray(value) ? sortedIds(present(value).map(idText)) : undefined;
      case "integer":
        return typeof value === "number" ? value : undefined;
      case "boolean":
        return typeof value === "boolean" ? value : undefined;
      default:
        return typeof value === "string" ? value : undefined;
    }
  }

  /** Calendar checks the schema's pattern cannot make (February 30th), then canonical UTC. */
  private time(raw: Raw, key: string, at: string): string | undefined {
    const text = raw[key];
    if (typeof text !== "string") return undefined;
    // Configs repeat the same few instants thousands of times: Time.parse remembers each.
    return this.places.parsed({ parent: raw, key, path: childPath(at, key) }, "TIME_INVALID", () =>
      Time.parse(text),
    );
  }

  /** Money as the schema lets it through; the wire rules (Money.fromWire) are stricter. */
  private money(parent: Raw, key: string, at: string): Money | undefined {
    const value = parent[key];
    const path = childPath(at, key);
    if (typeof value === "string") {
      return this.places.parsed({ parent, key, path }, "MONEY_INVALID", () => Money.parse(value));
    }
    const raw = value as { currency_code: string; units: string | number; nanos?: number };
    const problem = unitsProblem(raw.units);
    if (problem !== undefined) {
      this.places.issue(
        { parent: value, key: "units", path: childPath(path, "units") },
        "MONEY_INVALID",
        problem,
      );
      return undefined;
    }
    return this.places.parsed({ parent, key, path }, "MONEY_INVALID", () =>
      Money.fromWire({
        currency_code: raw.currency_code,
        units: String(raw.units),
        ...(raw.nanos === undefined ? {} : { nanos: raw.nanos }),
      }),
    );
  }
}
