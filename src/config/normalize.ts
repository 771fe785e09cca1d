/**
 * Stage 3: one schema-valid document -> the desired-state model (src/model/desired.ts).
 * Values here already have the right shapes, so this stage only parses leaf values that
 * the schema cannot fully judge (calendar dates, URLs) and records where each was written.
 */
import type {
  CampaignFields,
  ConnectionSettings,
  DesiredCampaign,
  DesiredCreative,
  DesiredInsertionOrder,
  InsertionOrderFields,
  PolicyRules,
  SourceRef,
} from "../model/desired.js";
import { Money } from "../model/money.js";
import { sortedIds, Targeting } from "../model/targeting.js";
import { Time } from "../model/time.js";
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
  connection?: { settings: ConnectionSettings; source: SourceRef };
  policy?: { rules: PolicyRules; source: SourceRef };
  insertionOrders: DesiredInsertionOrder[];
  creatives: DesiredCreative[];
}

export function normalizeFile(
  doc: Raw,
  index: SourceIndex,
): { result: NormalizedFile; issues: ConfigIssue[] } {
  return new Normalizer(index).file(doc);
}

class Normalizer {
  private readonly places: Places;

  constructor(index: SourceIndex) {
    this.places = new Places(index);
  }

  file(doc: Raw): { result: NormalizedFile; issues: ConfigIssue[] } {
    const result: NormalizedFile = { insertionOrders: [], creatives: [] };
    if (doc.connection !== undefined) {
      result.connection = {
        settings: normalizeConnection(doc.connection as Raw, "connection", this.places),
        source: this.places.ref(doc, "connection", "connection"),
      };
    }
    if (isMap(doc.policy)) {
      result.policy = {
        rules: normalizePolicy(doc.policy, "policy", this.places),
        source: this.places.ref(doc, "policy", "policy"),
      };
    }
    const ios = (doc.insertion_orders ?? []) as Raw[];
    // Items the schema check removed (undefined) were reported. One whose id it refused
    // stays, under a placeholder, so that the rules still report the rest of it in this run.
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
    const fields: InsertionOrderFields = {};
    const fieldSources: DesiredInsertionOrder["fieldSources"] = {};
    const declare = <K extends keyof InsertionOrderFields>(
      key: K,
      value: InsertionOrderFields[K] | undefined,
    ) => {
      if (value === undefined) return;
      fields[key] = value;
      fieldSources[key] = this.places.ref(raw, key, childPath(at, key));
    };
    if (raw.contract_number !== undefined) declare("contract_number", raw.contract_number as string | null);
    declare("start_time", this.time(raw, "start_time", at));
    declare("end_time", this.time(raw, "end_time", at));
    if (raw.budget_impressions !== undefined)
      declare("budget_impressions", raw.budget_impressions as number | null);
    if (raw.budget_money !== undefined) {
      declare("budget_money", raw.budget_money === null ? null : this.money(raw, "budget_money", at));
    }
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
    const fields: CampaignFields = {};
    const fieldSources: DesiredCampaign["fieldSources"] = {};
    const declare = <K extends keyof CampaignFields>(key: K, value: CampaignFields[K] | undefined) => {
      if (value === undefined) return;
      fields[key] = value;
      fieldSources[key] = this.places.ref(raw, key, childPath(at, key));
    };
    if (typeof raw.active === "boolean") declare("active", raw.active);
    declare("start_time", this.time(raw, "start_time", at));
    declare("end_time", this.time(raw, "end_time", at));
    if (typeof raw.budget_impressions === "number") declare("budget_impressions", raw.budget_impressions);
    if (raw.cpm !== undefined) declare("cpm", this.money(raw, "cpm", at));
    if (raw.pacing !== undefined) {
      declare("pacing", normalizePacing(raw.pacing as Raw, childPath(at, "pacing"), this.places));
    }
    const campaign: DesiredCampaign = {
      name: typeof raw.name === "string" ? raw.name : this.places.unnamed("name", list, j, at),
      fields,
      source: this.places.ref(list, j, at),
      fieldSources,
    };
    fieldSources.name = this.places.ref(raw, "name", childPath(at, "name"));
    if (raw.id !== undefined) {
      campaign.id = idText(raw.id);
      fieldSources.id = this.places.ref(raw, "id", childPath(at, "id"));
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
        fieldSources.targetings = this.places.ref(raw, "targetings", path);
      }
    }
    if (raw.creatives !== undefined) {
      campaign.creatives = sortedIds(present(raw.creatives as unknown[]).map(idText));
      fieldSources.creatives = this.places.ref(raw, "creatives", childPath(at, "creatives"));
    }
    return campaign;
  }

  private creative(raw: Raw, list: Raw[], i: number): DesiredCreative {
    const at = `creatives[${i}]`;
    const creative: DesiredCreative = {
      id: idText(raw.id),
      fields: {},
      source: this.places.ref(list, i, at),
      ...(raw.id === undefined ? {} : { idSource: this.places.ref(raw, "id", childPath(at, "id")) }),
      fieldSources: {},
    };
    if (raw.category_ids !== undefined) {
      creative.fields.category_ids = sortedIds(present(raw.category_ids as unknown[]).map(idText));
      creative.fieldSources.category_ids = this.places.ref(
        raw,
        "category_ids",
        childPath(at, "category_ids"),
      );
    }
    if (typeof raw.pixel_url === "string") {
      creative.fields.pixel_url = raw.pixel_url;
      creative.fieldSources.pixel_url = this.places.ref(raw, "pixel_url", childPath(at, "pixel_url"));
    }
    return creative;
  }

  /** Calendar checks the schema's pattern cannot make (February 30th), then canonical UTC. */
  private time(raw: Raw, key: "start_time" | "end_time", at: string): string | undefined {
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
