/** Shared pieces of the plan renderers: values in words, change headlines, colour as an option. */
import type { SourceRef } from "../model/desired.js";
import { Money } from "../model/money.js";
import { count, grouped, plural } from "../model/plural.js";
import { own, printable } from "../model/printable.js";
import type { TargetingOptionSet } from "../model/targeting.js";
import { TARGETING_OPTIONS } from "../model/targeting-members.js";
import { Time } from "../model/time.js";
import type { BudgetMoneyDelta, CampaignSpendDelta, Change, JsonValue, Plan } from "../plan/types.js";

export interface Paint {
  add(text: string): string;
  change(text: string): string;
  remove(text: string): string;
  bold(text: string): string;
  dim(text: string): string;
}

const RESET = own("\u001b[0m");
/** doohctl's own colour: marked, so the boundary lets it act (src/model/printable.ts). */
const ansi = (code: number) => {
  const on = own(`\u001b[${code}m`);
  return (text: string) => `${on}${text}${RESET}`;
};
const plain = (text: string) => text;

export function paint(colour: boolean): Paint {
  return colour
    ? { add: ansi(32), change: ansi(33), remove: ansi(31), bold: ansi(1), dim: ansi(2) }
    : { add: plain, change: plain, remove: plain, bold: plain, dim: plain };
}

/** `12.50 USD`, `1,000,000`, `none`, `["3","4"]` as `3, 4`. */
export function showValue(value: JsonValue): string {
  if (value === null) return "none";
  if (typeof value === "number") return grouped(value);
  // An empty text would read as nothing at all (`pixel_url:  -> ...`): show it as quotes.
  if (typeof value === "string") return value === "" ? '""' : printable(value);
  if (typeof value === "boolean") return String(value);
  if (Money.isWire(value)) return Money.formatGrouped(value as Money);
  if (Array.isArray(value) && value.every((v) => typeof v === "string"))
    return printable(`[${value.join(", ")}]`);
  return JSON.stringify(value);
}

/** `venues v1, v2 and not publishers p9`: an option set in words (options are ANDed). */
export function describeSet(set: TargetingOptionSet): string {
  const parts: string[] = [];
  const source = set as Record<string, { exclude?: boolean } & Record<string, unknown>>;
  for (const { member, ids: list, words: word } of TARGETING_OPTIONS) {
    const option = source[member];
    if (!option) continue;
    const ids = (option[list.name] as string[] | undefined) ?? [];
    parts.push(`${option.exclude ? "not " : ""}${word} ${ids.join(", ")}`);
  }
  return printable(parts.join(" and "));
}

export function where(source: SourceRef | undefined): string {
  return source ? `${source.file}:${source.line}:${source.column}` : "";
}

export function campaignLabel(c: { campaign_id?: string; name: string }): string {
  const name = printable(c.name);
  return c.campaign_id ? `campaign ${c.campaign_id} "${name}"` : `campaign "${name}" (new)`;
}

/** Per change kind, in the summary's order: its marker, and what one of it is in the action counts. */
export const KINDS: Record<Change["kind"], { marker: "+" | "~" | "-"; noun: string }> = {
  update_insertion_order: { marker: "~", noun: "insertion order update" },
  create_campaign: { marker: "+", noun: "campaign creation" },
  update_campaign: { marker: "~", noun: "campaign update" },
  deactivate_campaign: { marker: "-", noun: "deactivation" },
  replace_targetings: { marker: "~", noun: "targeting replacement" },
  associate_creative: { marker: "+", noun: "creative association" },
  dissociate_creative: { marker: "-", noun: "creative dissociation" },
  update_creative: { marker: "~", noun: "creative update" },
};

/** One line naming what a change does to which object. */
export function headline(change: Change): string {
  switch (change.kind) {
    case "update_insertion_order":
      return `update insertion order ${change.insertion_order_id}`;
    case "create_campaign":
      return `create campaign "${printable(change.campaign.name)}" (inactive until phase 6)`;
    case "update_campaign":
      return `update ${campaignLabel(change.campaign)}`;
    case "deactivate_campaign":
      return `deactivate ${campaignLabel(change.campaign)}: not in the config (unmanaged_campaigns: deactivate)`;
    case "replace_targetings":
      return `replace targetings of ${campaignLabel(change.campaign)}${change.pause ? " (paused during apply)" : ""}`;
    case "associate_creative":
      return `associate creative ${change.creative_id} with ${campaignLabel(change.campaign)}`;
    case "dissociate_creative":
      return `dissociate creative ${change.creative_id} from ${campaignLabel(change.campaign)}`;
    case "update_creative":
      return `update creative ${change.creative_id}`;
    default: {
      const unreachable: never = change;
      return unreachable;
    }
  }
}

/** Detail lines under a headline (without indentation or markers' colour). */
export function detailLines(change: Change): { marker: "+" | "~" | "-"; text: string }[] {
  switch (change.kind) {
    case "create_campaign":
      return change.fields.map((f) => ({ marker: "+", text: `${f.field}: ${showValue(f.after)}` }));
    case "update_insertion_order":
    case "update_campaign":
    case "update_creative":
      return change.fields.flatMap((f) => {
        const inner = (f.details ?? []).map((d) => ({
          marker: "~" as const,
          text: `  ${d.path}: ${showValue(d.before)} -> ${showValue(d.after)}`,
        }));
        if (f.field === "pacing" && inner.length > 0) return [{ marker: "~", text: "pacing:" }, ...inner];
        return [{ marker: "~", text: `${f.field}: ${showValue(f.before)} -> ${showValue(f.after)}` }];
      });
    case "replace_targetings":
      return [
        ...change.removed.map((s) => ({ marker: "-" as const, text: describeSet(s) })),
        ...change.added.map((s) => ({ marker: "+" as const, text: describeSet(s) })),
        ...(change.after.length === 0 ? [{ marker: "~" as const, text: "(no targetings)" }] : []),
      ];
    default:
      return [];
  }
}

/** The insertion order a change belongs to, or undefined for creative properties. */
export function insertionOrderOf(change: Change): string | undefined {
  if (change.kind === "update_insertion_order") return change.insertion_order_id;
  if (change.kind === "update_creative") return undefined;
  return change.campaign.insertion_order_id;
}

export function eta(plan: Plan): string {
  const s = plan.summary;
  // Slots of the pacing log (src/api/pacing-log.ts): this machine's earlier and concurrent runs
  // for the same origin, environment and user, an apply just made among them.
  const busy = s.write_slots_in_use
    ? ` (${count(s.write_slots_in_use, "write slot")} still taken by recent runs on this machine, yours included)`
    : "";
  return `${count(s.write_requests, "write request")}, about ${Time.formatDuration(s.estimated_apply_ms)} at ${s.write_window}${busy}`;
}

/** I5: how long the campaigns paused for targeting changes stay dark, estimated; undefined without pauses. */
export function darkTime(plan: Plan): string | undefined {
  const p = plan.summary.pauses;
  if (!p) return undefined;
  const bound =
    p.max_pause_ms !== undefined
      ? ` (--max-pause ${Time.formatDuration(p.max_pause_ms)}: ${count(p.extra_writes, "extra write")})`
      : "";
  const paused = `${count(p.campaigns, "campaign")} paused for targeting changes`;
  if (p.max_dark_ms === 0) {
    return `${paused}, each only while its group's requests run (the write window adds no wait)${bound}`;
  }
  return `${paused}, dark about ${Time.formatDuration(p.mean_dark_ms)} on average and ${Time.formatDuration(p.max_dark_ms)} at most${bound}`;
}

/** "no changes", unless a running apply keeps campaigns paused (DOOH203): then not all is well. */
export function noChanges(plan: Plan): string {
  const held = plan.findings.filter((f) => f.code === "DOOH203").length;
  return held === 0
    ? "no changes"
    : `no changes to send now; ${count(held, "campaign")} paused by a running apply (DOOH203)`;
}

export function actionCounts(plan: Plan): string {
  const parts = (Object.keys(KINDS) as Change["kind"][]).flatMap((k) => {
    const n = plan.summary.actions[k];
    return n ? [count(n, KINDS[k].noun)] : [];
  });
  return parts.length > 0 ? parts.join(", ") : "no changes";
}

/** Changes grouped by insertion order (config order), then creative property changes. */
export function groups(plan: Plan): { title: string; changes: Change[] }[] {
  const byIo = new Map<string, Change[]>();
  const creatives: Change[] = [];
  for (const change of plan.changes) {
    const io = insertionOrderOf(change);
    if (io === undefined) creatives.push(change);
    else {
      const list = byIo.get(io);
      if (list) list.push(change);
      else byIo.set(io, [change]);
    }
  }
  const out = [...byIo].map(([io, changes]) => ({ title: `insertion order ${io}`, changes }));
  if (creatives.length > 0) out.push({ title: "creatives", changes: creatives });
  return out;
}

/** One row of the money table, formatted: amounts in minor units with their currency, the change signed. */
export interface SpendRow {
  /** `Acme Outdoor USD` (advertiser 1 where its name was not read), or an insertion order's budget. */
  advertiser: string;
  before: string;
  after: string;
  /** `+750.00 USD (+20.0%)`; `+750.00 USD (new)` from zero; `0.00 USD` unchanged. */
  change: string;
  /** Empty when the plan read no progress for the row, and on a budget or campaign row. */
  remaining: string;
  /** Present on a campaign's line under its advertiser's row. */
  campaign?: true;
}

function percentOf(change: Money, before: Money): string {
  const b = Money.toNanos(before);
  const c = Money.toNanos(change);
  if (c === 0n) return "";
  if (b === 0n) return " (new)";
  // Tenths of a percent, rounded half away from zero, in exact integers.
  const tenths = (c * 2000n + (c < 0n ? -b : b)) / (2n * b);
  const abs = tenths < 0n ? -tenths : tenths;
  return ` (${c < 0n ? "-" : "+"}${abs / 10n}.${abs % 10n}%)`;
}

function changeText(before: Money, after: Money): string {
  const change = Money.subtract(after, before);
  return `${Money.formatAmount(change, { signed: true })}${percentOf(change, before)}`;
}

function advertiserName(row: { advertiser_id: string; advertiser_name?: string }): string {
  return row.advertiser_name !== undefined
    ? printable(row.advertiser_name)
    : `advertiser ${row.advertiser_id}`;
}

/** `insertion order 1001 "Holiday" (contract C-17) budget_money`: whose budget a budget row is. */
function budgetTitle(b: BudgetMoneyDelta): string {
  const contract = b.contract_number ? ` (contract ${printable(b.contract_number)})` : "";
  return `${advertiserName(b)}: insertion order ${b.insertion_order_id} "${printable(b.insertion_order_name)}"${contract} budget_money`;
}

function budgetRow(b: BudgetMoneyDelta): SpendRow {
  const { budget_before: before, budget_after: after } = b;
  const same = before && after && before.currency_code === after.currency_code;
  return {
    advertiser: budgetTitle(b),
    before: before ? Money.formatAmount(before) : "none",
    after: after ? Money.formatAmount(after) : "none",
    // A currency change is named, never read as a budget cleared: amounts are never converted.
    change: same
      ? changeText(before, after)
      : before && after
        ? `currency ${before.currency_code} -> ${after.currency_code}`
        : before
          ? "removed"
          : "new",
    remaining: "",
  };
}

/** G15 (docs/assumptions.md): campaigns whose spend in `currency` the DSP does not report, left out. */
function notReported(currency: string, campaignIds: readonly string[]): string {
  return `${currency} spend of ${plural(campaignIds.length, "campaign")} ${campaignIds.join(", ")} not reported by the DSP: not counted`;
}

/** A changed campaign's line: `campaign 5001 "Airports"` (`new campaign "Airports"` before it exists). */
function campaignRow(c: CampaignSpendDelta): SpendRow {
  const who = c.campaign_id !== undefined ? `campaign ${c.campaign_id}` : "new campaign";
  const unknown = c.spend_not_reported
    ? ` (its ${c.currency_code} spend not reported by the DSP: not counted)`
    : "";
  return {
    advertiser: `${who} "${printable(c.name)}" of insertion order ${c.insertion_order_id}${unknown}`,
    before: Money.formatAmount(c.max_spend_before),
    after: Money.formatAmount(c.max_spend_after),
    change: changeText(c.max_spend_before, c.max_spend_after),
    remaining: "",
    campaign: true,
  };
}

/**
 * The money table (an Infracost-like cost diff): maximum spend per advertiser and currency, each with
 * the changed campaigns' under it, then each insertion order whose `budget_money` changes.
 */
export function spendRows(plan: Plan): SpendRow[] {
  const campaigns = plan.summary.campaign_spend ?? [];
  const spend = (plan.summary.spend ?? []).flatMap((s) => [
    {
      advertiser: `${advertiserName(s)}${s.without_progress ? ` (without progress: ${s.without_progress.join(", ")} at budget x cpm)` : ""}${s.spend_not_reported ? ` (${notReported(s.currency_code, s.spend_not_reported)})` : ""}`,
      before: Money.formatAmount(s.max_spend_before),
      after: Money.formatAmount(s.max_spend_after),
      change: changeText(s.max_spend_before, s.max_spend_after),
      remaining: s.remaining ? Money.formatAmount(s.remaining) : "",
    },
    ...campaigns
      .filter((c) => c.advertiser_id === s.advertiser_id && c.currency_code === s.currency_code)
      .map(campaignRow),
  ]);
  return [...spend, ...(plan.summary.budget_money ?? []).map(budgetRow)];
}
