/**
 * The money a plan puts at stake (docs/plan.md, "Money"): per advertiser and currency, the
 * campaigns' maximum spend before and after, and `budget_money` changes as rows of their own.
 *
 * A campaign's maximum: what it spent (G2 `progress.spend`) plus, until its flight ends,
 * max(0, budget_impressions - delivered) x cpm / 1000; inactive ones count, being reactivable.
 * Read without progress: the whole budget x cpm / 1000 (`without_progress`). G15: spend in
 * another currency than the cpm's leaves its spend in the cpm's unknown, so only what is left
 * counts there (`spend_not_reported`); neither row has `spent` or `remaining`, never a 0 it
 * cannot know. Products sum in nano-units x 1000, divided once, half up.
 */
import { Money } from "../../model/money.js";
import { compareIds } from "../../model/targeting.js";
import { Time } from "../../model/time.js";
import type { Advertiser, Campaign } from "../../model/wire.js";
import type { LiveIndex } from "../live-index.js";
import type { BudgetMoneyDelta, CampaignRef, CampaignSpendDelta, Change, SpendDelta } from "../types.js";
import { toMoney } from "./commitments.js";

/** What decides a campaign's maximum spend at one side of the plan. */
interface Terms {
  impressions: number;
  cpm: Money;
  end_time: string;
}

/** A campaign as spend sees it: before the plan (live) and after it. */
export interface BudgetedCampaign {
  /** Undefined for a campaign the plan creates. */
  campaign_id?: string;
  insertion_order_id: string;
  advertiser_id: string;
  before?: Terms;
  after: Terms;
  /**
   * Zero for a new campaign; undefined when read without progress. `notReportedIn`: the
   * currency whose spend the DSP does not report (G15, `spendNotReportedIn`).
   */
  progress: { delivered: number; spent: Money; notReportedIn?: string } | undefined;
  /** The campaign as the plan names it, when the plan creates or updates it. */
  changed?: CampaignRef;
}

/** G15: the cpm's currency when the spend is reported in another (an earlier cpm's), so unknown in it. */
export function spendNotReportedIn(campaign: Pick<Campaign, "cpm" | "progress">): string | undefined {
  const spend = campaign.progress?.spend;
  if (!spend || spend.currency_code === campaign.cpm.currency_code) return undefined;
  return campaign.cpm.currency_code;
}

/** Amounts in nano-units x 1000, per currency: the exact sum of products. */
type Tally = Map<string, bigint>;

function addTo(tally: Tally, currency: string, milliNanos: bigint): void {
  tally.set(currency, (tally.get(currency) ?? 0n) + milliNanos);
}

/** A campaign's maximum spend under `terms`, spent and left, per currency (spend keeps its own). */
export function maximumSpend(
  terms: Terms,
  progress: BudgetedCampaign["progress"],
  now: number,
): { spent: Tally; left: Tally } {
  const spent: Tally = new Map();
  const left: Tally = new Map();
  const price = Money.toNanos(terms.cpm);
  if (!progress) {
    addTo(left, terms.cpm.currency_code, BigInt(terms.impressions) * price);
    return { spent, left };
  }
  addTo(spent, progress.spent.currency_code, Money.toNanos(progress.spent) * 1000n);
  const ended = Time.toMillis(terms.end_time) <= now;
  const rest = ended ? 0 : Math.max(0, terms.impressions - progress.delivered);
  addTo(left, terms.cpm.currency_code, BigInt(rest) * price);
  return { spent, left };
}

/** The maximum spend of a campaign under `terms`, spent and left together, per currency. */
export function totalSpend(terms: Terms, progress: BudgetedCampaign["progress"], now: number): Tally {
  const { spent, left } = maximumSpend(terms, progress, now);
  const total: Tally = new Map(spent);
  for (const [currency, amount] of left) addTo(total, currency, amount);
  return total;
}

function createdCampaign(change: Change & { kind: "create_campaign" }, advertiserId: string) {
  const get = (name: string) => change.fields.find((f) => f.field === name)?.after;
  const impressions = get("budget_impressions");
  const cpm = Money.fromValue(get("cpm"));
  const end = get("end_time");
  if (typeof impressions !== "number" || !cpm || typeof end !== "string") return undefined;
  return {
    insertion_order_id: change.campaign.insertion_order_id,
    advertiser_id: advertiserId,
    after: { impressions, cpm, end_time: end },
    progress: { delivered: 0, spent: Money.zero(cpm.currency_code) },
    changed: change.campaign,
  } satisfies BudgetedCampaign;
}

function liveProgress(campaign: Campaign, progress: NonNullable<Campaign["progress"]>) {
  const notReportedIn = spendNotReportedIn(campaign);
  return {
    delivered: progress.impressions_delivered,
    spent: Money.fromWire(progress.spend),
    ...(notReportedIn !== undefined ? { notReportedIn } : {}),
  };
}

/** Every campaign of the insertion orders read, live and created, with its terms before and after. */
export function budgetedCampaigns(input: {
  changes: readonly Change[];
  live: LiveIndex;
}): BudgetedCampaign[] {
  const { live } = input;
  const advertiser = (insertionOrderId: string) => live.insertionOrders.get(insertionOrderId)?.advertiser_id;
  const byId = new Map<string, BudgetedCampaign>();
  for (const c of live.campaigns.values()) {
    // Advertiser of a campaign: its insertion order's (live). Campaigns of insertion orders
    // the plan did not read (a pinned id found elsewhere) are not the plan's to count.
    const advertiserId = advertiser(c.insertion_order_id);
    if (advertiserId === undefined) continue;
    const terms = { impressions: c.budget_impressions, cpm: Money.fromWire(c.cpm), end_time: c.end_time };
    byId.set(c.id, {
      campaign_id: c.id,
      insertion_order_id: c.insertion_order_id,
      advertiser_id: advertiserId,
      before: terms,
      after: { ...terms },
      progress: c.progress ? liveProgress(c, c.progress) : undefined,
    });
  }
  const created: BudgetedCampaign[] = [];
  for (const change of input.changes) {
    if (change.kind === "create_campaign") {
      const advertiserId = advertiser(change.campaign.insertion_order_id);
      const entry = advertiserId === undefined ? undefined : createdCampaign(change, advertiserId);
      if (entry) created.push(entry);
      continue;
    }
    // A deactivation changes no maximum: an inactive campaign can be reactivated.
    if (change.kind !== "update_campaign" || change.campaign.campaign_id === undefined) continue;
    const entry = byId.get(change.campaign.campaign_id);
    if (!entry) continue;
    entry.changed = change.campaign;
    for (const f of change.fields) {
      if (f.field === "budget_impressions" && typeof f.after === "number") entry.after.impressions = f.after;
      const cpm = f.field === "cpm" ? Money.fromValue(f.after) : undefined;
      if (cpm) entry.after.cpm = cpm;
      if (f.field === "end_time" && typeof f.after === "string") entry.after.end_time = f.after;
    }
  }
  return [...byId.values(), ...created];
}

/** A campaign's maximum spend per currency, as Money: status's budget, by the money table's arithmetic. */
export function maximumSpendMoney(
  terms: Terms,
  progress: BudgetedCampaign["progress"],
  now: number,
): { spent: Money[]; maximum: Money[] } {
  const { spent, left } = maximumSpend(terms, progress, now);
  const total: Tally = new Map(spent);
  for (const [currency, amount] of left) addTo(total, currency, amount);
  // The cpm's currency always has an entry, zero when nothing is left or spent in it.
  if (!total.has(terms.cpm.currency_code)) total.set(terms.cpm.currency_code, 0n);
  const money = (tally: Tally) => [...tally].map(([currency, amount]) => toMoney(amount, currency));
  return { spent: money(spent), maximum: money(total) };
}

/** Created or updated campaigns whose maximum spend changes, per currency: the table's lines. */
export function campaignSpendChanges(input: {
  changes: readonly Change[];
  live: LiveIndex;
  now: string;
}): CampaignSpendDelta[] {
  const now = Time.toMillis(input.now);
  return budgetedCampaigns(input).flatMap((c) => {
    if (!c.changed) return [];
    const before: Tally = c.before ? totalSpend(c.before, c.progress, now) : new Map();
    const after = totalSpend(c.after, c.progress, now);
    const currencies = [...new Set([...before.keys(), ...after.keys()])].sort();
    const ref = c.changed;
    return currencies.flatMap((currency) => {
      const b = before.get(currency) ?? 0n;
      const a = after.get(currency) ?? 0n;
      if (a === b) return [];
      return [
        {
          insertion_order_id: ref.insertion_order_id,
          name: ref.name,
          ...(ref.campaign_id !== undefined ? { campaign_id: ref.campaign_id } : {}),
          advertiser_id: c.advertiser_id,
          currency_code: currency,
          max_spend_before: toMoney(b, currency),
          max_spend_after: toMoney(a, currency),
          ...(c.progress?.notReportedIn === currency ? { spend_not_reported: true as const } : {}),
        },
      ];
    });
  });
}

function byAdvertiserThenCurrency(
  a: { advertiser_id: string; currency_code: string },
  b: { advertiser_id: string; currency_code: string },
): number {
  return a.advertiser_id === b.advertiser_id
    ? a.currency_code.localeCompare(b.currency_code)
    : compareIds(a.advertiser_id, b.advertiser_id);
}

interface Row {
  advertiser_id: string;
  currency_code: string;
  before: bigint;
  after: bigint;
  spent: bigint;
  left: bigint;
  withoutProgress: string[];
  notReported: string[];
}

/** The money table's rows, by advertiser id then currency (`spent`, `remaining`: see above). */
export function spendSummary(input: {
  changes: readonly Change[];
  live: LiveIndex;
  advertisers?: readonly Advertiser[];
  now: string;
}): SpendDelta[] {
  const rows = new Map<string, Row>();
  const row = (advertiserId: string, currency: string): Row => {
    const key = `${advertiserId}\u0000${currency}`;
    let r = rows.get(key);
    if (!r) {
      r = {
        advertiser_id: advertiserId,
        currency_code: currency,
        before: 0n,
        after: 0n,
        spent: 0n,
        left: 0n,
        withoutProgress: [],
        notReported: [],
      };
      rows.set(key, r);
    }
    return r;
  };
  const now = Time.toMillis(input.now);
  for (const c of budgetedCampaigns(input)) {
    if (c.before) {
      const { spent, left } = maximumSpend(c.before, c.progress, now);
      for (const [currency, amount] of [...spent, ...left]) row(c.advertiser_id, currency).before += amount;
    }
    const { spent, left } = maximumSpend(c.after, c.progress, now);
    for (const [currency, amount] of spent) {
      const r = row(c.advertiser_id, currency);
      r.after += amount;
      r.spent += amount;
    }
    for (const [currency, amount] of left) {
      const r = row(c.advertiser_id, currency);
      r.after += amount;
      r.left += amount;
      if (!c.progress) r.withoutProgress.push(c.campaign_id ?? "");
    }
    const notReported = c.progress?.notReportedIn;
    if (notReported !== undefined) row(c.advertiser_id, notReported).notReported.push(c.campaign_id ?? "");
  }
  const names = new Map((input.advertisers ?? []).map((a) => [a.id, a.name]));
  return [...rows.values()].sort(byAdvertiserThenCurrency).map((r) => {
    const before = toMoney(r.before, r.currency_code);
    const after = toMoney(r.after, r.currency_code);
    const name = names.get(r.advertiser_id);
    return {
      advertiser_id: r.advertiser_id,
      ...(name !== undefined ? { advertiser_name: name } : {}),
      currency_code: r.currency_code,
      max_spend_before: before,
      max_spend_after: after,
      max_spend_change: Money.subtract(after, before),
      ...(r.withoutProgress.length > 0 ? { without_progress: r.withoutProgress.sort(compareIds) } : {}),
      ...(r.notReported.length > 0 ? { spend_not_reported: r.notReported.sort(compareIds) } : {}),
      ...(r.withoutProgress.length === 0 && r.notReported.length === 0
        ? { spent: toMoney(r.spent, r.currency_code), remaining: toMoney(r.left, r.currency_code) }
        : {}),
    };
  });
}

/** The insertion orders whose `budget_money` the plan changes, as rows of the money table. */
export function budgetMoneyChanges(input: {
  changes: readonly Change[];
  live: LiveIndex;
  advertisers?: readonly Advertiser[];
}): BudgetMoneyDelta[] {
  const ios = input.live.insertionOrders;
  const names = new Map((input.advertisers ?? []).map((a) => [a.id, a.name]));
  return input.changes.flatMap((c) => {
    if (c.kind !== "update_insertion_order") return [];
    const field = c.fields.find((f) => f.field === "budget_money");
    const io = ios.get(c.insertion_order_id);
    if (!field || !io) return [];
    const name = names.get(io.advertiser_id);
    return [
      {
        insertion_order_id: io.id,
        insertion_order_name: io.name,
        contract_number: io.contract_number,
        advertiser_id: io.advertiser_id,
        ...(name !== undefined ? { advertiser_name: name } : {}),
        budget_before: Money.fromValue(field.before) ?? null,
        budget_after: Money.fromValue(field.after) ?? null,
      },
    ];
  });
}
