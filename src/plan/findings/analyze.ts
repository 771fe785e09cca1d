/** The analyzers that explain what a plan does to live delivery (findings.ts). */
import { creativeServing } from "../../model/creative-serving.js";
import type { RateLimits } from "../../model/limits.js";
import { Money } from "../../model/money.js";
import { shownPercent } from "../../model/percent.js";
import { grouped } from "../../model/plural.js";
import { Ratio } from "../../model/ratio.js";
import { compareIds } from "../../model/targeting.js";
import { Time } from "../../model/time.js";
import type { Creative } from "../../model/wire.js";
import { deactivates } from "../changes/changes.js";
import { Placeholder } from "../changes/placeholder.js";
import { finding } from "../finding-catalogue.js";
import type { LiveIndex } from "../live-index.js";
import { pauseSpans } from "../requests/pauses.js";
import type {
  Change,
  CreateCampaign,
  FieldChange,
  Finding,
  PlannedRequest,
  PlanThresholds,
} from "../types.js";
import { spanMs, writeSendTimes } from "../window.js";
import { shortBudgets } from "./budget-cut.js";
import { silentDarkPaths } from "./dark-paths.js";
import { DELIVERY_ANALYZERS } from "./delivery.js";
import { type Analyzer, runAnalyzers } from "./findings.js";

export interface AnalyzeInput {
  changes: readonly Change[];
  requests: readonly PlannedRequest[];
  /** The live state, indexed once per plan. */
  live: LiveIndex;
  /** Campaign key (id or placeholder) -> whether it ends active. */
  finalActive: ReadonlyMap<string, boolean>;
  now: string;
  thresholds: Required<PlanThresholds>;
  rateLimits: RateLimits;
  /** Write slots other runs hold now (ms until each frees). */
  writeWindowBusyMs?: readonly number[];
  /** Whether a policy rule (DOOH902, DOOH903) checks this field of this change instead of DOOH401. */
  policed?: (change: Change, field: string) => boolean;
}

export const DEFAULT_THRESHOLDS: Required<PlanThresholds> = {
  budget_increase_percent: 50,
  cpm_increase_percent: 20,
  min_budget_days: 2,
};

/** Window-bound: with no wait for the window, the pause lasts as long as its requests take. */
function pauseSpan(times: readonly number[], pause: number, resume: number): string {
  const ms = spanMs(times, pause, resume);
  return ms > 0
    ? `, for about ${Time.formatDuration(ms)} (requests ${pause} to ${resume})`
    : `, for as long as requests ${pause} to ${resume} take (the write window adds no wait)`;
}

function pauses(input: AnalyzeInput): Finding[] {
  const times = writeSendTimes(input.requests.length, input.rateLimits.write, input.writeWindowBusyMs);
  const spans = new Map(pauseSpans(input).map((s) => [s.change_id, s]));
  return input.changes.flatMap((c) => {
    if (c.kind !== "replace_targetings" || !c.pause) return [];
    const at = spans.get(c.id);
    const span = at?.resume_seq !== undefined ? pauseSpan(times, at.pause_seq, at.resume_seq) : "";
    return [
      finding(
        "DOOH201",
        `pauses campaign ${c.campaign.campaign_id} "${c.campaign.name}" to change its targetings: an active campaign cannot lose an option set (see docs/assumptions.md#g5)${span}`,
        { address: c.address, change_ids: [c.id], source: c.source },
      ),
    ];
  });
}

/** The words every dark path's message carries (docs/plan.md): a campaign in flight stops delivering. */
function stopsInFlight(input: AnalyzeInput, campaignId: string | undefined): string {
  const live = campaignId === undefined ? undefined : input.live.campaigns.get(campaignId);
  if (!live?.active) return "";
  const now = Time.toMillis(input.now);
  const inFlight = Time.toMillis(live.start_time) <= now && now < Time.toMillis(live.end_time);
  return inFlight ? `, in flight until ${live.end_time}: delivery stops at apply` : "";
}

function deactivations(input: AnalyzeInput): Finding[] {
  return input.changes.flatMap((c) => {
    if (c.kind === "deactivate_campaign") {
      return [
        finding(
          "DOOH101",
          `deactivates live campaign ${c.campaign.campaign_id} "${c.campaign.name}"${stopsInFlight(input, c.campaign.campaign_id)}: the config does not list it and insertion order ${c.campaign.insertion_order_id} has unmanaged_campaigns: deactivate`,
          { address: c.address, change_ids: [c.id] },
        ),
      ];
    }
    if (c.kind === "update_campaign" && deactivates(c)) {
      return [
        finding(
          "DOOH101",
          `deactivates live campaign ${c.campaign.campaign_id} "${c.campaign.name}"${stopsInFlight(input, c.campaign.campaign_id)}`,
          {
            address: c.address,
            change_ids: [c.id],
            source: c.fields.find((f) => f.field === "active")?.source ?? c.source,
          },
        ),
      ];
    }
    return [];
  });
}

function endedFlights(input: AnalyzeInput): Finding[] {
  const now = Time.toMillis(input.now);
  const seen = new Set<string>();
  return input.changes.flatMap((c) => {
    if (c.kind === "update_insertion_order" || c.kind === "update_creative") return [];
    if (c.kind === "create_campaign") return endedCreation(c, now);
    const id = c.campaign.campaign_id;
    const live = id === undefined ? undefined : input.live.campaigns.get(id);
    if (!live || seen.has(live.id) || Time.toMillis(live.end_time) > now) return [];
    seen.add(live.id);
    // An end moved past now reopens the flight: an active campaign delivers again at apply.
    const end = c.kind === "update_campaign" ? c.fields.find((f) => f.field === "end_time") : undefined;
    const reopened =
      typeof end?.after === "string" &&
      Time.toMillis(end.after) > now &&
      input.finalActive.get(live.id) === true
        ? `; its new end_time ${end.after} is after now, so delivery starts again at apply`
        : "";
    return [
      finding(
        "DOOH301",
        `edits campaign ${live.id} "${live.name}", whose flight ended ${live.end_time}: check this change is meant${reopened}`,
        { address: c.address, change_ids: [c.id], source: c.source },
      ),
    ];
  });
}

/** A new campaign whose flight is over (a copied or stale config) never delivers: said plainly. */
function endedCreation(c: CreateCampaign, now: number): Finding[] {
  const end = c.fields.find((f) => f.field === "end_time")?.after;
  if (typeof end !== "string" || Time.toMillis(end) > now) return [];
  return [
    finding(
      "DOOH301",
      `creates campaign "${c.campaign.name}", whose flight ended ${end}: it will never deliver; give it dates in the future, or leave it out`,
      { address: c.address, change_ids: [c.id], source: c.source },
    ),
  ];
}

/** A field's exact increase in percent of its live value; undefined when it does not grow. */
export function increasePercent(field: FieldChange): Ratio | "from zero" | undefined {
  const { before, after } = field;
  if (typeof before === "number" && typeof after === "number") {
    if (after <= before) return undefined;
    if (before === 0) return "from zero";
    const [b, a] = [Ratio.fromDecimal(before), Ratio.fromDecimal(after)];
    return Ratio.divide(Ratio.multiply(Ratio.subtract(a, b), Ratio.of(100)), b);
  }
  const b = Money.fromValue(before);
  const a = Money.fromValue(after);
  if (!a || !b || a.currency_code !== b.currency_code) return undefined;
  const bn = Money.toNanos(b);
  const an = Money.toNanos(a);
  if (an <= bn) return undefined;
  return bn === 0n ? "from zero" : Ratio.of((an - bn) * 100n, bn);
}

/** Whether an increase is above a limit in percent, judged exactly (the limit as the decimal written). */
export function exceeds(increase: Ratio | "from zero", limit: number): boolean {
  return increase === "from zero" || Ratio.compare(increase, Ratio.fromDecimal(limit)) > 0;
}

/** An increase as the findings quote it: `+60%`, `+50.004%` against 50, or `from zero`. */
export function describeIncrease(increase: Ratio | "from zero", limit: number): string {
  return increase === "from zero"
    ? "from zero"
    : shownPercent(increase, { threshold: Ratio.fromDecimal(limit), digits: 0 });
}

export function show(value: unknown): string {
  if (typeof value === "number") return grouped(value);
  if (value && typeof value === "object" && "units" in value) return Money.formatGrouped(value as Money);
  return String(value);
}

/** What a change is to, as every finding names it: `campaign 5001 "Airports"`, `insertion order 1001`. */
export function changeSubject(change: Change): string {
  if (change.kind === "update_insertion_order") return `insertion order ${change.insertion_order_id}`;
  if (change.kind === "update_creative") return `creative ${change.creative_id}`;
  const { campaign_id: id, name } = change.campaign;
  return id !== undefined ? `campaign ${id} "${name}"` : campaignLabel(change.campaign);
}

function increases(input: AnalyzeInput): Finding[] {
  const limits: Record<string, number> = {
    budget_impressions: input.thresholds.budget_increase_percent,
    budget_money: input.thresholds.budget_increase_percent,
    cpm: input.thresholds.cpm_increase_percent,
  };
  return input.changes.flatMap((c) => {
    if (c.kind !== "update_campaign" && c.kind !== "update_insertion_order") return [];
    return c.fields.flatMap((f) => {
      const limit = limits[f.field];
      if (input.policed?.(c, f.field)) return [];
      const increase = increasePercent(f);
      if (limit === undefined || increase === undefined || !exceeds(increase, limit)) return [];
      return [
        finding(
          "DOOH401",
          `raises ${f.field} of ${changeSubject(c)}, ${show(f.before)} -> ${show(f.after)} (${describeIncrease(increase, limit)}, above the ${limit}% threshold)`,
          { address: c.address, change_ids: [c.id], source: f.source ?? c.source },
        ),
      ];
    });
  });
}

/** Why a creative cannot serve (src/model/creative-serving.ts, the rule status uses too), or undefined. */
function notReady(creative: Creative): string | undefined {
  const serving = creativeServing(creative);
  return serving.state === "can serve" ? undefined : `${serving.state}: ${serving.reason}`;
}

function campaignLabel(ref: { campaign_id?: string; name: string; insertion_order_id: string }): string {
  return `${ref.campaign_id === undefined ? "new campaign" : `campaign ${ref.campaign_id}`} "${ref.name}" of insertion order ${ref.insertion_order_id}`;
}

/**
 * DOOH501: a creative that will not serve on a campaign left active: one the plan associates, or
 * one already with a campaign the plan activates (unless the plan dissociates it).
 */
function creativeReadiness(input: AnalyzeInput): Finding[] {
  const dissociated = new Set<string>();
  for (const c of input.changes) {
    if (c.kind === "dissociate_creative") dissociated.add(`${c.creative_id}/${c.campaign.campaign_id}`);
  }
  return input.changes.flatMap((c) => {
    if (c.kind === "associate_creative") {
      const key = c.campaign.campaign_id ?? Placeholder.make(c.campaign.create_change_id ?? "");
      if (input.finalActive.get(key) !== true) return [];
      const creative = input.live.creatives.get(c.creative_id);
      const problem = creative && notReady(creative);
      if (!problem) return [];
      return [
        finding(
          "DOOH501",
          `creative ${c.creative_id} ${problem}, and this plan associates it with ${campaignLabel(c.campaign)}, which will be active: it will not serve there`,
          { address: c.address, change_ids: [c.id], source: c.source },
        ),
      ];
    }
    if (c.kind !== "update_campaign" || c.campaign.campaign_id === undefined) return [];
    const active = c.fields.find((f) => f.field === "active");
    if (active?.before !== false || active.after !== true) return [];
    const campaignId = c.campaign.campaign_id;
    return input.live
      .creativesOf(campaignId)
      .filter((creative) => !dissociated.has(`${creative.id}/${campaignId}`))
      .sort((a, b) => compareIds(a.id, b.id))
      .flatMap((creative) => {
        const problem = notReady(creative);
        if (!problem) return [];
        return [
          finding(
            "DOOH501",
            `creative ${creative.id} ${problem}, and is associated with ${campaignLabel(c.campaign)}, which this plan activates: it will not serve there`,
            { address: c.address, change_ids: [c.id], source: active.source ?? c.source },
          ),
        ];
      });
  });
}

/** The analyzers of a scheduled plan, in the order their findings are listed. */
export const PLAN_ANALYZERS: readonly Analyzer<AnalyzeInput>[] = [
  { name: "deactivations", codes: ["DOOH101"], run: deactivations },
  { name: "silent-dark-paths", codes: ["DOOH102"], run: silentDarkPaths },
  { name: "targeting-pauses", codes: ["DOOH201"], run: pauses },
  { name: "ended-flights", codes: ["DOOH301"], run: endedFlights },
  ...DELIVERY_ANALYZERS,
  { name: "short-budgets", codes: ["DOOH304"], run: shortBudgets },
  { name: "increases", codes: ["DOOH401"], run: increases },
  { name: "creative-readiness", codes: ["DOOH501"], run: creativeReadiness },
];

/** Last in the pass (pass.ts), over the requests the plan keeps: these findings explain, never block. */
export function analyze(input: AnalyzeInput): Finding[] {
  return runAnalyzers(PLAN_ANALYZERS, input);
}
