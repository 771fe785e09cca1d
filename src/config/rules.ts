/**
 * Stage 4: rules the config alone decides, across all files: G8, which the service would refuse
 * anyway, and contradicting declarations. Whether a campaign is new is known only at plan time,
 * so nothing here requires creation fields.
 */
import type { DesiredCampaign, DesiredInsertionOrder, DesiredState, SourceRef } from "../model/desired.js";
import { Money } from "../model/money.js";
import { grouped } from "../model/plural.js";
import { loosenings } from "../model/policy-strictness.js";
import { type Flight, type FlightEnd, type WriteRuleBreach, WriteRules } from "../model/write-rules.js";
import type { ConfigIssue, ConfigIssueCode } from "./issues.js";

export function checkRules(
  state: DesiredState,
  connections: readonly SourceRef[],
  policies: readonly SourceRef[] = [],
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const add = (at: SourceRef, code: ConfigIssueCode, message: string, hint?: string) =>
    issues.push({ ...at, message, code, ...(hint === undefined ? {} : { hint }) });

  /** A top-level section declared in several files: each after the first is reported. */
  const inOneFile = (declared: readonly SourceRef[], code: ConfigIssueCode, what: string, hint: string) => {
    for (const second of declared.slice(1)) {
      add(second, code, `${what} is declared twice: also at ${where(declared[0]!)}`, hint);
    }
  };
  inOneFile(connections, "CONNECTION_DECLARED_TWICE", "connection", "declare connection in one file only");
  inOneFile(
    policies,
    "DUPLICATE_DECLARATION",
    "policy",
    "declare the top-level policy in one file only (an insertion order can override it with its own policy)",
  );
  duplicates(state, add);
  for (const io of state.insertionOrders) {
    onlyTightens(state, io, add);
    g8(io, add);
  }
  return issues;
}

type Add = (at: SourceRef, code: ConfigIssueCode, message: string, hint?: string) => void;

/**
 * An insertion order's `policy` may only tighten the top-level rules (docs/plan.md, "Guardrail
 * policies"), which the policy's owners review (examples/policy/CODEOWNERS).
 */
function onlyTightens(state: DesiredState, io: DesiredInsertionOrder, add: Add): void {
  if (!io.policy) return;
  for (const l of loosenings(state.policy, { ...state.policy, ...io.policy })) {
    add(
      l.source ?? io.source,
      "POLICY_LOOSENED",
      `insertion order ${io.id}'s policy loosens the top-level rule, ${l.what}: an insertion order's policy may only tighten the top-level rules`,
      "keep the top-level action and a limit at or below it here, or change the top-level policy (reviewed by its owners)",
    );
  }
}

export function where(ref: SourceRef): string {
  return `${ref.file}:${ref.line}:${ref.column}`;
}

/** Where the first declaration is; a block an alias reuses is one place, so say the alias repeats it. */
function againAt(first: SourceRef, here: SourceRef): string {
  return where(first) === where(here)
    ? "an alias or merge key uses this block twice, so it is declared in two places"
    : `here and at ${where(first)}`;
}

function duplicates(state: DesiredState, add: Add): void {
  /** Remembers where `key` is first declared; reports each later declaration there. */
  const once = (seen: Map<string, SourceRef>, key: string, at: SourceRef, twice: string, hint: string) => {
    const first = seen.get(key);
    if (first === undefined) seen.set(key, at);
    else add(at, "DUPLICATE_DECLARATION", `${twice}: ${againAt(first, at)}`, hint);
  };
  const ios = new Map<string, SourceRef>();
  const campaignIds = new Map<string, SourceRef>();
  // Each is reported at the key that repeats the identity (`id:`, `name:`), not at its item.
  for (const io of state.insertionOrders) {
    const ioAt = io.idSource ?? io.source;
    once(
      ios,
      io.id,
      ioAt,
      `insertion order "${io.id}" is declared twice`,
      "declare each insertion order once, with all its campaigns",
    );
    const names = new Map<string, SourceRef>();
    const pinned = new Set<string>();
    for (const campaign of io.campaigns) {
      once(
        names,
        campaign.name,
        campaign.fieldSources.name ?? campaign.source,
        `campaign "${campaign.name}" is declared twice in insertion order "${io.id}"`,
        // Two live campaigns may share a name, but the API cannot rename either
        // (ARCHITECTURE.md#identity): the config can manage only one of them.
        campaign.id !== undefined && pinned.has(campaign.name)
          ? "a campaign's name is its identity within its insertion order, and the API cannot rename a campaign: declare one of the two and leave the other unmanaged"
          : "a campaign's name is its identity within its insertion order: give the new one another name, or remove one",
      );
      if (campaign.id === undefined) continue;
      pinned.add(campaign.name);
      once(
        campaignIds,
        campaign.id,
        campaign.fieldSources.id ?? campaign.source,
        `campaign id "${campaign.id}" is declared twice`,
        "each campaign id may be pinned once",
      );
    }
  }
  const creatives = new Map<string, SourceRef>();
  for (const creative of state.creatives) {
    once(
      creatives,
      creative.id,
      creative.idSource ?? creative.source,
      `creative "${creative.id}" is declared twice`,
      "declare each creative once",
    );
  }
}

/** G8 as `WriteRules` judges the config (src/model/write-rules.ts): flights, then budget, then currencies. */
function g8(io: DesiredInsertionOrder, add: Add): void {
  const judged = io.campaigns.map((campaign) => ({
    campaign,
    breaches: WriteRules.campaign(campaign.fields, io.fields),
  }));
  let sum = 0;
  for (const campaign of io.campaigns) sum += campaign.fields.budget_impressions ?? 0;
  const own = WriteRules.insertionOrder(io.fields, sum);
  if (own.some((b) => b.rule === "flight_order")) flightOrder(io.fields, io.fieldSources, add);
  for (const { campaign, breaches } of judged) {
    for (const breach of breaches) {
      if (breach.rule === "flight_order") flightOrder(campaign.fields, campaign.fieldSources, add);
      else if (breach.rule === "within_flight") outsideInsertionOrder(io, campaign, breach, add);
    }
  }
  for (const breach of own) if (breach.rule === "budget_sum") overBudget(io, breach, add);
  for (const { campaign, breaches } of judged) {
    for (const breach of breaches) if (breach.rule === "currency") currency(io, campaign, add);
  }
}

/** G8: start strictly before end; reported at the end, the value to move. */
function flightOrder(fields: Flight, sources: Partial<Record<FlightEnd, SourceRef>>, add: Add): void {
  const { start_time: startAt, end_time: endAt } = sources;
  if (endAt === undefined) return;
  add(
    endAt,
    "FLIGHT_ORDER",
    `end_time ${fields.end_time} is not after start_time ${fields.start_time}${startAt ? ` (${where(startAt)})` : ""}: a flight must end after it starts (see docs/assumptions.md#g8)`,
  );
}

/** G8: a campaign's flight inside its insertion order's; `breach` names the end and the bound. */
function outsideInsertionOrder(
  io: DesiredInsertionOrder,
  campaign: DesiredCampaign,
  breach: WriteRuleBreach & { rule: "within_flight" },
  add: Add,
): void {
  const value = campaign.fields[breach.field];
  const bound = io.fields[breach.bound];
  const relation = {
    start_time: { start_time: "is before", end_time: "is not before" },
    end_time: { start_time: "is not after", end_time: "is after" },
  }[breach.field][breach.bound];
  const event = breach.bound === "start_time" ? "starts" : "ends";
  add(
    campaign.fieldSources[breach.field]!,
    "FLIGHT_OUTSIDE_INSERTION_ORDER",
    `${breach.field} ${value} ${relation} insertion order "${io.id}" ${event} (${bound}, ${where(io.fieldSources[breach.bound]!)}): a campaign's flight lies inside its insertion order's (see docs/assumptions.md#g8)`,
  );
}

/** G8: campaigns divide the insertion order's budget; declared ones alone must fit in it. */
function overBudget(io: DesiredInsertionOrder, breach: { sum: number; budget: number }, add: Add): void {
  add(
    io.fieldSources.budget_impressions!,
    "BUDGET_OVER_INSERTION_ORDER",
    `the declared campaigns' budget_impressions add up to ${grouped(breach.sum)}, over this insertion order's budget of ${grouped(breach.budget)} (see docs/assumptions.md#g8)`,
    "raise budget_impressions here or lower a campaign's",
  );
}

/** G8: a campaign's cpm is in its insertion order's budget_money currency. */
function currency(io: DesiredInsertionOrder, campaign: DesiredCampaign, add: Add): void {
  const budget = io.fields.budget_money!;
  const cpm = campaign.fields.cpm!;
  add(
    campaign.fieldSources.cpm!,
    "CURRENCY_MISMATCH",
    `cpm is in ${cpm.currency_code} but insertion order "${io.id}" budgets in ${budget.currency_code} (${where(io.fieldSources.budget_money!)}): write the cpm in ${budget.currency_code} (see docs/assumptions.md#g8)`,
    `for example "${Money.format({ ...cpm, currency_code: budget.currency_code })}"`,
  );
}
