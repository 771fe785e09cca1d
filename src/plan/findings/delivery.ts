/**
 * What a change does to a campaign that has delivered, from its `progress` (G2; none read, no
 * finding). Errors are what the DSP lets through but no one means (a budget below delivery, a
 * currency changed under spend); warnings say what delivery does at apply.
 */
import { Money } from "../../model/money.js";
import { grouped } from "../../model/plural.js";
import { Ratio } from "../../model/ratio.js";
import { compareIds } from "../../model/targeting.js";
import { Time } from "../../model/time.js";
import type { Campaign } from "../../model/wire.js";
import { finding } from "../finding-catalogue.js";
import type { LiveIndex } from "../live-index.js";
import type { Change, FieldChange, Finding } from "../types.js";
import { type Analyzer, runAnalyzers } from "./findings.js";
import { spendNotReportedIn } from "./spend.js";

export interface DeliveryInput {
  changes: readonly Change[];
  /** The live state, indexed once per plan. */
  live: LiveIndex;
  now: string;
  /** `--allow`: DOOH804 named here is a warning that says so. */
  allowed?: readonly string[];
}

function field(fields: readonly FieldChange[], name: string): FieldChange | undefined {
  return fields.find((f) => f.field === name);
}

/** What an insertion order's campaigns have spent, per currency (G2 progress.spend), exact. */
function spentByCurrency(campaigns: Iterable<Campaign>): Map<string, Money> {
  const spent = new Map<string, Money>();
  for (const c of campaigns) {
    if (!c.progress) continue;
    const { spend } = c.progress;
    const sum = spent.get(spend.currency_code);
    spent.set(spend.currency_code, sum ? Money.add(sum, Money.fromWire(spend)) : Money.fromWire(spend));
  }
  return spent;
}

/** `spent` rounded up to the currency's minor unit: the least budget a person can type that covers it. */
function atLeast(spent: Money): Money {
  const rounded = Money.roundToMinor(spent);
  if (Money.compare(rounded, spent) >= 0) return rounded;
  const unit = 10n ** BigInt(9 - Money.minorUnits(spent.currency_code));
  return Money.fromNanos(Money.toNanos(rounded) + unit, spent.currency_code);
}

/** DOOH801: a campaign budget below its delivery; DOOH802: an order's budget_money below its spend. */
function budgetsBelowDelivery(input: DeliveryInput): Finding[] {
  return input.changes.flatMap((c) => {
    if (c.kind === "update_campaign") {
      const live =
        c.campaign.campaign_id === undefined ? undefined : input.live.campaigns.get(c.campaign.campaign_id);
      const budget = field(c.fields, "budget_impressions");
      const delivered = live?.progress?.impressions_delivered;
      if (!live || !budget || typeof budget.after !== "number" || delivered === undefined) return [];
      if (budget.after >= delivered) return [];
      return [
        finding(
          "DOOH801",
          `sets budget_impressions of campaign ${live.id} "${live.name}" to ${grouped(budget.after)}, below the ${grouped(delivered)} impressions it has already delivered: raise it to at least ${grouped(delivered)}, or deactivate the campaign to stop it`,
          { address: c.address, change_ids: [c.id], source: budget.source ?? c.source },
        ),
      ];
    }
    if (c.kind === "update_insertion_order") return budgetMoneyBelowSpend(input, c);
    return [];
  });
}

/**
 * DOOH802 for a `budget_money` change: below the spend reported in its currency, an error; with
 * spend the DSP does not report (G15: a cpm that changed currency) and none known above it, a
 * warning naming those campaigns, since no one can tell the budget covers them.
 */
function budgetMoneyBelowSpend(
  input: DeliveryInput,
  c: Change & { kind: "update_insertion_order" },
): Finding[] {
  const budget = field(c.fields, "budget_money");
  const after = Money.fromValue(budget?.after);
  if (!budget || !after) return [];
  const campaigns = input.live.campaignsOf(c.insertion_order_id);
  const byCurrency = spentByCurrency(campaigns);
  const spent = byCurrency.get(after.currency_code);
  const unknown = campaigns
    .filter((campaign) => spendNotReportedIn(campaign) === after.currency_code)
    .map((campaign) => campaign.id)
    .sort(compareIds);
  const extra = { address: c.address, change_ids: [c.id], source: budget.source ?? c.source };
  const also = elsewhere(byCurrency, after.currency_code);
  if (spent && Money.compare(after, spent) < 0) {
    const more = unknown.length > 0 ? `, plus ${notReported(unknown, after.currency_code)}` : "";
    return [
      finding(
        "DOOH802",
        `sets budget_money of insertion order ${c.insertion_order_id} to ${showApart(after, spent)}, below the ${showApart(spent, after)} its campaigns have already spent in ${after.currency_code}: raise it to at least ${Money.formatAmount(atLeast(spent))}${more}${also}`,
        extra,
      ),
    ];
  }
  if (unknown.length === 0) return [];
  const known = spent
    ? `the ${Money.formatAmount(spent)} its campaigns are reported to have spent in ${after.currency_code} is within it, but `
    : "";
  const denied = finding(
    "DOOH802",
    `sets budget_money of insertion order ${c.insertion_order_id} to ${Money.formatAmount(after)}: ${known}${notReported(unknown, after.currency_code)}, so it cannot be checked against this budget: make sure the budget covers it${also}`,
    extra,
  );
  return [{ ...denied, severity: "warning" }];
}

/** G15: what the DSP does not report, in words: "what campaign 5003 has spent in USD (...)". */
function notReported(campaignIds: readonly string[], currency: string): string {
  const who =
    campaignIds.length === 1
      ? `campaign ${campaignIds[0]} has spent in ${currency} since its cpm changed currency`
      : `campaigns ${campaignIds.join(", ")} have spent in ${currency} since their cpm changed currency`;
  return `what ${who}, which the DSP does not report (only the spend in the earlier currency; see docs/assumptions.md#g15)`;
}

/** An amount in its minor units, or every decimal where that would read as `other` (16,679.525). */
function showApart(amount: Money, other: Money): string {
  const short = Money.formatAmount(amount);
  if (Money.equals(amount, other) || short !== Money.formatAmount(other)) return short;
  return Money.formatGrouped(amount);
}

/** The note for spend in other currencies than `currency`: never converted, never compared. */
function elsewhere(byCurrency: ReadonlyMap<string, Money>, currency: string): string {
  const other = [...byCurrency.values()].filter((m) => m.currency_code !== currency && Money.toNanos(m) > 0n);
  if (other.length === 0) return "";
  return `; ${other.map((m) => Money.formatAmount(m)).join(" and ")} spent in another currency cannot be compared with it (never converted)`;
}

/** What a DOOH804 is: an error, or a warning that says `--allow DOOH804` let it through. */
function currencyFinding(
  input: DeliveryInput,
  message: string,
  extra: Parameters<typeof finding>[2],
): Finding {
  const denied = finding("DOOH804", message, extra);
  if (input.allowed?.includes("DOOH804")) {
    return { ...denied, severity: "warning", message: `${message}: allowed by --allow DOOH804` };
  }
  return { ...denied, message: `${message}: keep the currency, or pass --allow DOOH804 to apply anyway` };
}

/**
 * DOOH804: a budget_money or cpm changes currency after money was spent: that spend stays in its
 * currency (G2, never converted), out of reach of any limit in the new one, and what is spent in
 * the new one goes unreported (G15). An error unless `--allow DOOH804`.
 */
function currencyChanges(input: DeliveryInput): Finding[] {
  return input.changes.flatMap((c) => {
    if (c.kind === "update_insertion_order") {
      const budget = field(c.fields, "budget_money");
      const before = Money.fromValue(budget?.before);
      const after = Money.fromValue(budget?.after);
      if (!budget || !before || !after || before.currency_code === after.currency_code) return [];
      const byCurrency = spentByCurrency(input.live.campaignsOf(c.insertion_order_id));
      const spent = [...byCurrency.values()].filter(
        (m) => m.currency_code !== after.currency_code && Money.toNanos(m) > 0n,
      );
      if (spent.length === 0) return [];
      return [
        currencyFinding(
          input,
          `changes the currency of budget_money of insertion order ${c.insertion_order_id}, ${Money.formatAmount(before)} -> ${Money.formatAmount(after)}, after its campaigns have spent ${spent.map((m) => Money.formatAmount(m)).join(" and ")}: that spend stays in its currency and cannot count against a budget in ${after.currency_code}; and once their cpm is in ${after.currency_code}, the DSP reports only their spend in the earlier currency (G15, docs/assumptions.md#g15): what they spend in ${after.currency_code} will not be visible to status or plan, and this budget cannot be checked against it`,
          { address: c.address, change_ids: [c.id], source: budget.source ?? c.source },
        ),
      ];
    }
    if (c.kind !== "update_campaign" || c.campaign.campaign_id === undefined) return [];
    const live = input.live.campaigns.get(c.campaign.campaign_id);
    const cpm = field(c.fields, "cpm");
    const before = Money.fromValue(cpm?.before);
    const after = Money.fromValue(cpm?.after);
    const spend = live?.progress ? Money.fromWire(live.progress.spend) : undefined;
    if (!live || !cpm || !before || !after || !spend || before.currency_code === after.currency_code)
      return [];
    if (spend.currency_code === after.currency_code || Money.toNanos(spend) === 0n) return [];
    return [
      currencyFinding(
        input,
        `changes the currency of the cpm of campaign ${live.id} "${live.name}", ${Money.formatGrouped(before)} -> ${Money.formatGrouped(after)}, after it has spent ${Money.formatAmount(spend)}: that spend stays in ${spend.currency_code}, the rest of its budget is bought in ${after.currency_code}; from then on the DSP reports only its spend in ${spend.currency_code} (G15, docs/assumptions.md#g15): what it spends in ${after.currency_code} will not be visible to status or plan, and no budget_money in ${after.currency_code} can be checked against it`,
        { address: c.address, change_ids: [c.id], source: cpm.source ?? c.source },
      ),
    ];
  });
}

/** DOOH302: an end_time not after now on an active campaign in flight (G2 `in_flight`) stops it at apply. */
function endedInFlight(input: DeliveryInput): Finding[] {
  const now = Time.toMillis(input.now);
  return input.changes.flatMap((c) => {
    if (c.kind !== "update_campaign" || c.campaign.campaign_id === undefined) return [];
    const live = input.live.campaigns.get(c.campaign.campaign_id);
    const end = field(c.fields, "end_time");
    // An inactive campaign delivers nothing, in flight or not: its end stops nothing.
    if (!live?.in_flight || !live.active || !end || typeof end.after !== "string") return [];
    if (Time.toMillis(end.after) > now) return [];
    const delivered = live.progress
      ? ` after ${grouped(live.progress.impressions_delivered)} of ${grouped(live.budget_impressions)} impressions`
      : "";
    return [
      finding(
        "DOOH302",
        `ends the flight of campaign ${live.id} "${live.name}", in flight now: end_time ${end.after} is not after now, so delivery stops at apply${delivered}`,
        { address: c.address, change_ids: [c.id], source: end.source ?? c.source },
      ),
    ];
  });
}

function percent(part: number, whole: number): string {
  if (whole <= 0) return "all";
  return `${Ratio.toFixed(Ratio.of(BigInt(part) * 100n, whole), 1)}%`;
}

/** The cpm delivered impressions cost (spend x 1000 / delivered, half to even); may differ from the cpm. */
export function boughtCpm(spend: Money, delivered: number): Money | undefined {
  if (delivered <= 0) return undefined;
  const nanos = Ratio.toFixed(Ratio.of(Money.toNanos(spend) * 1000n, delivered), 0);
  return Money.fromNanos(BigInt(nanos), spend.currency_code);
}

/** DOOH303: a cpm change in flight after delivery: only the rest is bought at the new cpm. */
function cpmMidFlight(input: DeliveryInput): Finding[] {
  return input.changes.flatMap((c) => {
    if (c.kind !== "update_campaign" || c.campaign.campaign_id === undefined) return [];
    const live = input.live.campaigns.get(c.campaign.campaign_id);
    const cpm = field(c.fields, "cpm");
    const before = Money.fromValue(cpm?.before);
    const after = Money.fromValue(cpm?.after);
    const progress = live?.progress;
    if (!live?.in_flight || !cpm || !before || !after || !progress || progress.impressions_delivered === 0)
      return [];
    const budget = field(c.fields, "budget_impressions");
    const total = typeof budget?.after === "number" ? budget.after : live.budget_impressions;
    const delivered = progress.impressions_delivered;
    const rest = Math.max(0, total - delivered);
    const spend = Money.fromWire(progress.spend);
    const paid = boughtCpm(spend, delivered);
    const price =
      paid && !Money.equals(paid, before)
        ? `an average cpm of ${Money.formatGrouped(paid)}, not the ${Money.formatGrouped(before)} the campaign has now`
        : `the old cpm, ${Money.formatGrouped(before)}`;
    // G15: with spend not reported in the cpm's currency, no average cpm can be known.
    const unknown = spendNotReportedIn(live);
    const bought =
      unknown !== undefined
        ? `for ${Money.formatAmount(spend)} plus what it spent in ${unknown}, which the DSP does not report (G15)`
        : `for ${Money.formatAmount(spend)} at ${price}`;
    return [
      finding(
        "DOOH303",
        `changes the cpm of campaign ${live.id} "${live.name}" mid-flight, ${Money.formatGrouped(before)} -> ${Money.formatGrouped(after)}: ${percent(delivered, total)} of its budget (${grouped(delivered)} of ${grouped(total)} impressions) was bought ${bought}; the new cpm applies to the remaining ${grouped(rest)}`,
        { address: c.address, change_ids: [c.id], source: cpm.source ?? c.source },
      ),
    ];
  });
}

/** The errors: a budget below what is delivered or spent, a currency changed under spent money. */
export const BUDGET_ANALYZERS: readonly Analyzer<DeliveryInput>[] = [
  { name: "budgets-below-delivery", codes: ["DOOH801", "DOOH802"], run: budgetsBelowDelivery },
  { name: "currency-changes", codes: ["DOOH804"], run: currencyChanges },
];

/** A budget below what is delivered or spent leaves nothing to apply (pass.ts). */
export function overspentBudgets(input: DeliveryInput): Finding[] {
  return runAnalyzers(BUDGET_ANALYZERS, input);
}

/** The warnings; `analyze` runs them with the other analyzers. */
export const DELIVERY_ANALYZERS: readonly Analyzer<DeliveryInput>[] = [
  { name: "ends-in-flight", codes: ["DOOH302"], run: endedInFlight },
  { name: "cpm-mid-flight", codes: ["DOOH303"], run: cpmMidFlight },
];
