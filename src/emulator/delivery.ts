/**
 * The emulator's delivery (G2 leaves it to the service): a campaign delivers while active, in
 * flight and with a creative, accumulating, so a pause keeps what was delivered. The rate is its
 * budget over its flight at 85% to 115% of linear, fixed by its id (reproducible); impressions are
 * capped at the budget. Spend is impressions * cpm / 1000 in exact nanos, each cpm pricing what was
 * delivered under it, in its currency: never relabelled or converted (docs/plan.md, "Currencies").
 * G2's one `progress.spend` is the first currency spent in once two hold spend; the later one's is
 * kept in the accrual, never added to it.
 */
import { Money } from "../model/money.js";

/** What has been delivered, and up to when (clock ms). Plain data: the state file keeps it. */
export interface Accrual {
  since: number;
  delivered: number;
  /** Impression-fractions not yet whole, as numerator over `denominator` (exact, no drift). */
  carry: string;
  denominator: string;
  /** Spend of the impressions delivered under earlier cpms in the current cpm's currency, in nanos. */
  spent_nanos: string;
  /** Spend in other currencies than the current cpm's, in nanos, in the order first spent. */
  spent_elsewhere?: { currency_code: string; nanos: string }[];
  /** The currency first spent in, set when a cpm changes currency after spending. */
  first_currency?: string;
  /** Impressions delivered under the current cpm, and that cpm. */
  segment_impressions: number;
  segment_cpm: Money;
}

export interface DeliveringCampaign {
  id: string;
  active: boolean;
  start: number;
  end: number;
  budget_impressions: number;
  cpm: Money;
  hasCreative: boolean;
}

/** Pace in permille of linear: 850 to 1150, from the id alone (FNV-1a), so it is reproducible. */
export function pacePermille(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return 850 + (hash % 301);
}

export function startAccrual(since: number, cpm: Money): Accrual {
  return {
    since,
    delivered: 0,
    carry: "0",
    denominator: "1",
    spent_nanos: "0",
    segment_impressions: 0,
    segment_cpm: { ...cpm },
  };
}

/** The accrual brought up to `now`: a new value, the old one is left as it was. */
export function accrue(previous: Accrual, campaign: DeliveringCampaign, now: number): Accrual {
  const next: Accrual = { ...previous, since: Math.max(previous.since, now) };
  if (!Money.equals(next.segment_cpm, campaign.cpm)) {
    const spent = BigInt(next.spent_nanos) + segmentSpend(next);
    const from = next.segment_cpm.currency_code;
    const to = campaign.cpm.currency_code;
    if (from === to) next.spent_nanos = spent.toString();
    else {
      // The old currency's spend is put aside in its own currency; the new one's, if any, resumes.
      if (spent > 0n && next.first_currency === undefined) next.first_currency = from;
      const elsewhere = (next.spent_elsewhere ?? []).map((e) => ({ ...e }));
      const old = elsewhere.find((e) => e.currency_code === from);
      if (old) old.nanos = (BigInt(old.nanos) + spent).toString();
      else if (spent > 0n) elsewhere.push({ currency_code: from, nanos: spent.toString() });
      const resumed = elsewhere.find((e) => e.currency_code === to);
      next.spent_nanos = resumed?.nanos ?? "0";
      next.spent_elsewhere = elsewhere.filter((e) => e !== resumed);
    }
    next.segment_impressions = 0;
    next.segment_cpm = { ...campaign.cpm };
  }
  const from = Math.max(previous.since, campaign.start);
  const to = Math.min(now, campaign.end);
  const flight = campaign.end - campaign.start;
  if (!campaign.active || !campaign.hasCreative || to <= from || flight <= 0) return next;
  if (next.delivered >= campaign.budget_impressions) return next;
  const denominator = BigInt(flight) * 1000n;
  // A changed flight changes the unit of the carry: less than one impression is dropped.
  const carry = denominator.toString() === next.denominator ? BigInt(next.carry) : 0n;
  const numerator =
    BigInt(to - from) * BigInt(campaign.budget_impressions) * BigInt(pacePermille(campaign.id)) + carry;
  const room = campaign.budget_impressions - next.delivered;
  const whole = numerator / denominator;
  const added = whole >= BigInt(room) ? room : Number(whole);
  next.delivered += added;
  next.segment_impressions += added;
  next.carry = added === room ? "0" : (numerator % denominator).toString();
  next.denominator = denominator.toString();
  return next;
}

/** Spend per currency, each in the currency it was spent in. */
export function spendByCurrency(accrual: Accrual): Money[] {
  const current = Money.fromNanos(
    BigInt(accrual.spent_nanos) + segmentSpend(accrual),
    accrual.segment_cpm.currency_code,
  );
  const elsewhere = (accrual.spent_elsewhere ?? []).map((e) =>
    Money.fromNanos(BigInt(e.nanos), e.currency_code),
  );
  return [...elsewhere, current];
}

export function progressOf(accrual: Accrual): { impressions_delivered: number; spend: Money } {
  const spent = spendByCurrency(accrual).filter((m) => Money.toNanos(m) > 0n);
  const first = spent.find((m) => m.currency_code === accrual.first_currency);
  const current = Money.zero(accrual.segment_cpm.currency_code);
  return { impressions_delivered: accrual.delivered, spend: first ?? spent[0] ?? current };
}

function segmentSpend(accrual: Accrual): bigint {
  return (Money.toNanos(accrual.segment_cpm) * BigInt(accrual.segment_impressions)) / 1000n;
}
