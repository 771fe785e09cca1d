/**
 * The money a plan puts at stake, the way a cost diff shows it: per advertiser and currency,
 * the maximum spend of the campaigns before and after the plan (budget_impressions x cpm /
 * 1000, summed) and what the campaigns left delivering can still spend given their progress
 * (G2). Exact decimals throughout: products are summed in nano-units x impressions and
 * divided by 1000 once, rounded half up to the nano.
 */
import { Money } from "../model/money.js";
import { compareIds } from "../model/targeting.js";
import { Time } from "../model/time.js";
import type { Campaign, InsertionOrder } from "../model/wire.js";
import type { Change, SpendDelta } from "./types.js";

/** A campaign as spend sees it: before the plan (live) and after it. */
interface Budgeted {
  advertiser_id: string;
  before?: { impressions: number; cpm: Money };
  after: { impressions: number; cpm: Money; active: boolean; end_time: string };
  /** progress.spend; zero for a new campaign; undefined when read without progress. */
  spent: Money | undefined;
}

function budgeted(input: {
  changes: readonly Change[];
  campaigns: readonly Campaign[];
  insertionOrders: readonly InsertionOrder[];
}): Budgeted[] {
  const advertiser = new Map(input.insertionOrders.map((io) => [io.id, io.advertiser_id]));
  const byId = new Map<string, Budgeted>();
  for (const c of input.campaigns) {
    // Advertiser of a campaign: its insertion order's (live). Campaigns of insertion orders
    // the plan did not read (a pinned id found elsewhere) are not the plan's to count.
    const advertiserId = advertiser.get(c.insertion_order_id);
    if (advertiserId === undefined) continue;
    byId.set(c.id, {
      advertiser_id: advertiserId,
      before: { impressions: c.budget_impressions, cpm: Money.fromWire(c.cpm) },
      after: {
        impressions: c.budget_impressions,
        cpm: Money.fromWire(c.cpm),
        active: c.active,
        end_time: c.end_time,
      },
      spent: c.progress ? Money.fromWire(c.progress.spend) : undefined,
    });
  }
  const created: Budgeted[] = [];
  for (const change of input.changes) {
    if (change.kind === "create_campaign") {
      const advertiserId = advertiser.get(change.campaign.insertion_order_id);
      const get = (name: string) => change.fields.find((f) => f.field === name)?.after;
      const impressions = get("budget_impressions");
      const cpm = Money.fromValue(get("cpm"));
      const end = get("end_time");
      if (advertiserId === undefined || typeof impressions !== "number" || !cpm || typeof end !== "string")
        continue;
      created.push({
        advertiser_id: advertiserId,
        after: { impressions, cpm, active: get("active") === true, end_time: end },
        spent: Money.zero(cpm.currency_code),
      });
      continue;
    }
    if (change.kind !== "update_campaign" && change.kind !== "deactivate_campaign") continue;
    const entry =
      change.campaign.campaign_id === undefined ? undefined : byId.get(change.campaign.campaign_id);
    if (!entry) continue;
    if (change.kind === "deactivate_campaign") {
      entry.after.active = false;
      continue;
    }
    for (const f of change.fields) {
      if (f.field === "budget_impressions" && typeof f.after === "number") entry.after.impressions = f.after;
      if (f.field === "cpm" && Money.fromValue(f.after)) entry.after.cpm = Money.fromValue(f.after)!;
      if (f.field === "active" && typeof f.after === "boolean") entry.after.active = f.after;
      if (f.field === "end_time" && typeof f.after === "string") entry.after.end_time = f.after;
    }
  }
  return [...byId.values(), ...created];
}

/** Adds budget x cpm in nano-units x 1000 (exact); `toMoney` divides once, at the end. */
function tally(sums: Map<string, bigint>, key: string, impressions: number, cpm: Money): void {
  sums.set(key, (sums.get(key) ?? 0n) + BigInt(impressions) * Money.toNanos(cpm));
}

/** Rounds half up to the nano: only a cpm with more than 6 decimals can leave a remainder. */
function toMoney(milliNanos: bigint, currency: string): Money {
  return Money.fromNanos((milliNanos + 500n) / 1000n, currency);
}

/**
 * Per advertiser and currency (a cpm currency change moves a campaign between currencies),
 * sorted by advertiser id then currency. `remaining` counts the campaigns that end active and
 * whose flight has not ended at `now`: their maximum spend after the plan less what they have
 * spent, never below zero; it is absent when a campaign of the row was read without progress.
 */
export function spendSummary(input: {
  changes: readonly Change[];
  campaigns: readonly Campaign[];
  insertionOrders: readonly InsertionOrder[];
  now: string;
}): SpendDelta[] {
  const before = new Map<string, bigint>();
  const after = new Map<string, bigint>();
  const remaining = new Map<string, bigint>();
  const unknown = new Set<string>();
  const keys = new Map<string, { advertiser_id: string; currency_code: string }>();
  const keyOf = (advertiserId: string, currency: string) => {
    const key = `${advertiserId}\u0000${currency}`;
    keys.set(key, { advertiser_id: advertiserId, currency_code: currency });
    return key;
  };
  const now = Time.toMillis(input.now);
  for (const c of budgeted(input)) {
    if (c.before)
      tally(before, keyOf(c.advertiser_id, c.before.cpm.currency_code), c.before.impressions, c.before.cpm);
    const key = keyOf(c.advertiser_id, c.after.cpm.currency_code);
    tally(after, key, c.after.impressions, c.after.cpm);
    if (!c.after.active || Time.toMillis(c.after.end_time) <= now) continue;
    if (c.spent === undefined) {
      unknown.add(key);
      continue;
    }
    const max = BigInt(c.after.impressions) * Money.toNanos(c.after.cpm);
    // Spend in another currency than the cpm (a cpm currency change) cannot be netted.
    const spent = c.spent.currency_code === c.after.cpm.currency_code ? Money.toNanos(c.spent) * 1000n : 0n;
    const left = max > spent ? max - spent : 0n;
    remaining.set(key, (remaining.get(key) ?? 0n) + left);
  }
  return [...keys.entries()]
    .sort(([, a], [, b]) =>
      a.advertiser_id === b.advertiser_id
        ? a.currency_code.localeCompare(b.currency_code)
        : compareIds(a.advertiser_id, b.advertiser_id),
    )
    .map(([key, { advertiser_id, currency_code }]) => {
      const b = toMoney(before.get(key) ?? 0n, currency_code);
      const a = toMoney(after.get(key) ?? 0n, currency_code);
      const left = remaining.get(key) ?? 0n;
      return {
        advertiser_id,
        currency_code,
        max_spend_before: b,
        max_spend_after: a,
        max_spend_change: Money.subtract(a, b),
        ...(unknown.has(key) ? {} : { remaining: toMoney(left, currency_code) }),
      };
    });
}
