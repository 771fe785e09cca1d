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
  PolicyRule,
  PolicyRules,
  SourceRef,
} from "../model/desired.js";
import { PUBLISHED_RATE_LIMITS, RateLimit, type RateLimits } from "../model/limits.js";
import { Money } from "../model/money.js";
import { sortedIds, Targeting } from "../model/targeting.js";
import { Time } from "../model/time.js";
import type { Environment } from "../model/wire.js";
import { unitsProblem } from "./explain.js";
import type { ConfigIssue, ConfigIssueCode } from "./issues.js";
import { originProblem } from "./origin-problem.js";
import { idText, isMap, present, type Raw, targetingSet } from "./raw-values.js";
import type { SourceIndex } from "./source-index.js";

/**
 * The path of `key` inside `path`. A place is passed around as its parent, its key there and
 * this text, not as a list of segments: a 10,000-campaign config names some 100,000 places,
 * and each list would be garbage to collect.
 */
function child(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

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
  readonly issues: ConfigIssue[] = [];

  constructor(private readonly index: SourceIndex) {}

  file(doc: Raw): { result: NormalizedFile; issues: ConfigIssue[] } {
    const result: NormalizedFile = { insertionOrders: [], creatives: [] };
    if (doc.connection !== undefined) {
      result.connection = {
        settings: this.connection(doc.connection as Raw, "connection"),
        source: this.ref(doc, "connection", "connection"),
      };
    }
    if (isMap(doc.policy)) {
      result.policy = { rules: this.policy(doc.policy, "policy"), source: this.ref(doc, "policy", "policy") };
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
    return { result, issues: this.issues };
  }

  private connection(raw: Raw, at: string): ConnectionSettings {
    const settings: ConnectionSettings = {};
    if (typeof raw.api_origin === "string") {
      const origin = this.origin(raw.api_origin, raw, child(at, "api_origin"));
      if (origin !== undefined) settings.apiOrigin = origin;
    }
    if (raw.environment !== undefined) settings.environment = raw.environment as Environment;
    if (raw.rate_limits !== undefined) {
      const limits: RateLimits = { ...PUBLISHED_RATE_LIMITS };
      const declared = raw.rate_limits as Partial<Record<keyof RateLimits, string>>;
      for (const name of ["get", "write", "session"] as const) {
        const text = declared[name];
        if (text === undefined) continue;
        const path = child(child(at, "rate_limits"), name);
        const window = this.parsed(declared, name, path, "RATE_LIMIT_INVALID", () =>
          RateLimit.parseWindow(text),
        );
        if (window !== undefined) limits[name] = window;
      }
      settings.rateLimits = limits;
    }
    return settings;
  }

  /** Guardrail rules (`policy:`); the schema has checked their shapes. Action default: deny. */
  private policy(raw: Raw, at: string): PolicyRules {
    const rules: PolicyRules = {};
    for (const name of [
      "max_cpm",
      "budget_increase_percent",
      "cpm_increase_percent",
      "max_added_spend",
      "no_deactivation_in_flight",
    ] as const) {
      const declared = raw[name];
      if (!isMap(declared)) continue;
      const path = child(at, name);
      const rule: PolicyRule = {
        action: declared.action === "warn" ? "warn" : "deny",
        source: this.ref(raw, name, path),
      };
      if (typeof declared.limit === "number") rule.limit = declared.limit;
      if (Array.isArray(declared.limits)) {
        const limits = declared.limits;
        const seen = new Map<string, number>();
        rule.limits = limits.flatMap((value, i) => {
          const money = this.policyMoney(limits, i, `${child(path, "limits")}[${i}]`, value);
          if (money === undefined) return [];
          const first = seen.get(money.currency_code);
          if (first !== undefined) {
            this.issue(
              limits,
              i,
              `${child(path, "limits")}[${i}]`,
              "DUPLICATE_DECLARATION",
              `${name} has a second limit in ${money.currency_code} (the first is limits[${first}]): keep one per currency`,
            );
            return [];
          }
          seen.set(money.currency_code, i);
          return [money];
        });
      }
      rules[name] = rule;
    }
    return rules;
  }

  private policyMoney(list: unknown[], i: number, path: string, value: unknown): Money | undefined {
    try {
      if (typeof value === "string") return Money.parse(value);
      const raw = value as { currency_code: string; units: string | number; nanos?: number };
      const problem = unitsProblem(raw.units);
      if (problem !== undefined) throw new Error(problem);
      return Money.fromWire({
        currency_code: raw.currency_code,
        units: String(raw.units),
        ...(raw.nanos === undefined ? {} : { nanos: raw.nanos }),
      });
    } catch (error) {
      this.issue(list, i, path, "MONEY_INVALID", error instanceof Error ? error.message : String(error));
      return undefined;
    }
  }

  /** An origin only: scheme and host. G13: plain http only to a loopback address. */
  private origin(text: string, parent: Raw, path: string): string | undefined {
    const problem = originProblem(text);
    if (problem === undefined) return new URL(text).origin;
    this.issue(parent, "api_origin", path, "ORIGIN_INVALID", problem);
    return undefined;
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
      fieldSources[key] = this.ref(raw, key, child(at, key));
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
    const campaignsAt = child(at, "campaigns");
    return {
      id: raw.id === undefined ? this.unnamed("id", list, i, at) : idText(raw.id),
      fields,
      unmanagedCampaigns: raw.unmanaged_campaigns === "deactivate" ? "deactivate" : "ignore",
      ...(isMap(raw.policy) ? { policy: this.policy(raw.policy, child(at, "policy")) } : {}),
      campaigns: campaigns.flatMap((c, j) =>
        isMap(c) ? [this.campaign(c, campaigns, j, `${campaignsAt}[${j}]`)] : [],
      ),
      source: this.ref(list, i, at),
      ...(raw.id === undefined ? {} : { idSource: this.ref(raw, "id", child(at, "id")) }),
      fieldSources,
    };
  }

  private campaign(raw: Raw, list: Raw[], j: number, at: string): DesiredCampaign {
    const fields: CampaignFields = {};
    const fieldSources: DesiredCampaign["fieldSources"] = {};
    const declare = <K extends keyof CampaignFields>(key: K, value: CampaignFields[K] | undefined) => {
      if (value === undefined) return;
      fields[key] = value;
      fieldSources[key] = this.ref(raw, key, child(at, key));
    };
    if (typeof raw.active === "boolean") declare("active", raw.active);
    declare("start_time", this.time(raw, "start_time", at));
    declare("end_time", this.time(raw, "end_time", at));
    if (typeof raw.budget_impressions === "number") declare("budget_impressions", raw.budget_impressions);
    if (raw.cpm !== undefined) declare("cpm", this.money(raw, "cpm", at));
    if (raw.pacing !== undefined) declare("pacing", this.pacing(raw.pacing as Raw, child(at, "pacing")));
    const campaign: DesiredCampaign = {
      name: typeof raw.name === "string" ? raw.name : this.unnamed("name", list, j, at),
      fields,
      source: this.ref(list, j, at),
      fieldSources,
    };
    fieldSources.name = this.ref(raw, "name", child(at, "name"));
    if (raw.id !== undefined) {
      campaign.id = idText(raw.id);
      fieldSources.id = this.ref(raw, "id", child(at, "id"));
    }
    if (raw.targetings !== undefined) {
      const path = child(at, "targetings");
      const targetings = this.parsed(raw, "targetings", path, "INVALID_VALUE", () =>
        Targeting.normalizeList(
          (raw.targetings as (Raw | undefined)[]).flatMap((set) => (set ? [targetingSet(set)] : [])),
        ),
      );
      if (targetings !== undefined) {
        campaign.targetings = targetings;
        fieldSources.targetings = this.ref(raw, "targetings", path);
      }
    }
    if (raw.creatives !== undefined) {
      campaign.creatives = sortedIds(present(raw.creatives as unknown[]).map(idText));
      fieldSources.creatives = this.ref(raw, "creatives", child(at, "creatives"));
    }
    return campaign;
  }

  private creative(raw: Raw, list: Raw[], i: number): DesiredCreative {
    const at = `creatives[${i}]`;
    const creative: DesiredCreative = {
      id: idText(raw.id),
      fields: {},
      source: this.ref(list, i, at),
      ...(raw.id === undefined ? {} : { idSource: this.ref(raw, "id", child(at, "id")) }),
      fieldSources: {},
    };
    if (raw.category_ids !== undefined) {
      creative.fields.category_ids = sortedIds(present(raw.category_ids as unknown[]).map(idText));
      creative.fieldSources.category_ids = this.ref(raw, "category_ids", child(at, "category_ids"));
    }
    if (typeof raw.pixel_url === "string") {
      creative.fields.pixel_url = raw.pixel_url;
      creative.fieldSources.pixel_url = this.ref(raw, "pixel_url", child(at, "pixel_url"));
    }
    return creative;
  }

  /** Calendar checks the schema's pattern cannot make (February 30th), then canonical UTC. */
  private time(raw: Raw, key: "start_time" | "end_time", at: string): string | undefined {
    const text = raw[key];
    if (typeof text !== "string") return undefined;
    // Configs repeat the same few instants thousands of times: Time.parse remembers each.
    return this.parsed(raw, key, child(at, key), "TIME_INVALID", () => Time.parse(text));
  }

  /** Money as the schema lets it through; the wire rules (Money.fromWire) are stricter. */
  private money(parent: Raw, key: string, at: string): Money | undefined {
    const value = parent[key];
    const path = child(at, key);
    if (typeof value === "string") {
      return this.parsed(parent, key, path, "MONEY_INVALID", () => Money.parse(value));
    }
    const raw = value as { currency_code: string; units: string | number; nanos?: number };
    const problem = unitsProblem(raw.units);
    if (problem !== undefined) {
      this.issue(value, "units", child(path, "units"), "MONEY_INVALID", problem);
      return undefined;
    }
    return this.parsed(parent, key, path, "MONEY_INVALID", () =>
      Money.fromWire({
        currency_code: raw.currency_code,
        units: String(raw.units),
        ...(raw.nanos === undefined ? {} : { nanos: raw.nanos }),
      }),
    );
  }

  /**
   * Runs one of the model's parsers on a value the schema accepted. The schema and the
   * parsers are meant to agree; where they do not, the parser's refusal becomes an issue at
   * the value, so that loadConfig reports it instead of throwing out of the run.
   */
  private parsed<T>(
    parent: unknown,
    key: string,
    path: string,
    code: ConfigIssueCode,
    parse: () => T,
  ): T | undefined {
    try {
      return parse();
    } catch (error) {
      this.issue(parent, key, path, code, error instanceof Error ? error.message : String(error));
      return undefined;
    }
  }

  /**
   * Pacing is opaque (G2) but goes into JSON: an integer beyond 2^53 would lose digits, and
   * `.inf` or `.nan` would be sent as null, so that every plan would show the change again.
   */
  private pacing(raw: Raw, at: string): Record<string, unknown> {
    const walk = (value: unknown, parent: unknown, key: string | number, path: string): unknown => {
      if (typeof value === "number" && !Number.isFinite(value)) {
        this.issue(
          parent,
          key,
          path,
          "INVALID_VALUE",
          `${this.index.writtenAt(parent, key) ?? value} has no JSON form (the API would receive null): write a finite number, or null`,
        );
        return null;
      }
      if (typeof value === "bigint") {
        this.issue(
          parent,
          key,
          path,
          "NUMBER_TOO_LARGE",
          `${value} is too large: numbers go up to ${Number.MAX_SAFE_INTEGER}`,
        );
        return null;
      }
      if (Array.isArray(value)) return value.map((v, i) => walk(v, value, i, `${path}[${i}]`));
      if (typeof value === "object" && value !== null) {
        return Object.fromEntries(
          Object.entries(value).map(([k, v]) => [k, walk(v, value, k, child(path, k))]),
        );
      }
      return value;
    };
    return walk(raw, undefined, "", at) as Record<string, unknown>;
  }

  /**
   * Stands in for an id or name the schema check refused, which is reported already: unique
   * per object, so it never makes a false duplicate, and it says where the object is in the
   * rules' messages. It never reaches a plan: the refused id fails the load.
   */
  private unnamed(what: "id" | "name", list: unknown, i: number, at: string): string {
    const { file, line, column } = this.ref(list, i, at);
    return `(no valid ${what}, at ${file}:${line}:${column})`;
  }

  /** Where `parent[key]` was written, with its path. */
  private ref(parent: unknown, key: string | number, path: string): SourceRef {
    const { line, column } = this.index.ofValue(parent, key);
    return { file: this.index.file, line, column, path };
  }

  private issue(
    parent: unknown,
    key: string | number,
    path: string,
    code: ConfigIssueCode,
    message: string,
  ): void {
    this.issues.push({ ...this.ref(parent, key, path), message, code });
  }
}
