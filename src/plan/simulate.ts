/**
 * Replays the planned requests on a model of the live state and checks, after each one,
 * the rules the DSP enforces (G8) and the targeting rule (G5). A rule broken at the end
 * means the desired state itself cannot exist (DOOH701); one broken only on the way means
 * no safe order was found (DOOH702). Either way the plan is refused before any write.
 */

import { append } from "../model/append.js";
import type { DesiredState, SourceRef } from "../model/desired.js";
import { printable } from "../model/printable.js";
import { Targeting, type TargetingOptionSet } from "../model/targeting.js";
import { Time } from "../model/time.js";
import type { Campaign, InsertionOrder } from "../model/wire.js";
import { finding } from "./findings.js";
import { Placeholder } from "./placeholder.js";
import type { Finding, LiveState, PlannedRequest } from "./types.js";

type Io = Pick<InsertionOrder, "id" | "start_time" | "end_time" | "budget_impressions" | "budget_money">;
type Camp = Pick<
  Campaign,
  "id" | "insertion_order_id" | "name" | "active" | "start_time" | "end_time" | "budget_impressions" | "cpm"
>;

interface Model {
  ios: Map<string, Io>;
  campaigns: Map<string, Camp>;
  byIo: Map<string, Set<string>>;
  /** Sum of campaign budgets per insertion order, kept as campaigns change. */
  sums: Map<string, number>;
  targetings: Map<string, TargetingOptionSet[]>;
  /** Where the config declares each insertion order, and each campaign by `io/name`. */
  declared: { ios: Map<string, SourceRef>; campaigns: Map<string, SourceRef> };
  /** The config place a problem sentence is about, for the finding's file:line. */
  problemSources: Map<string, SourceRef>;
}

/**
 * Times repeat a lot (10,000 campaigns share a few flights): parsed once, in a bounded memo
 * (time.ts). Compared exactly to the nanosecond (G14).
 */
const cmp = Time.compare;

function model(live: LiveState, desired: DesiredState | undefined): Model {
  const m: Model = {
    ios: new Map(),
    campaigns: new Map(),
    byIo: new Map(),
    sums: new Map(),
    targetings: new Map(),
    declared: { ios: new Map(), campaigns: new Map() },
    problemSources: new Map(),
  };
  for (const io of desired?.insertionOrders ?? []) {
    m.declared.ios.set(io.id, io.source);
    for (const c of io.campaigns) m.declared.campaigns.set(`${io.id}/${c.name}`, c.source);
  }
  for (const io of live.insertionOrders) m.ios.set(io.id, { ...io });
  for (const c of live.campaigns) addCampaign(m, { ...c });
  for (const [id, sets] of Object.entries(live.targetings)) m.targetings.set(id, sets);
  return m;
}

function addCampaign(m: Model, c: Camp): void {
  m.campaigns.set(c.id, c);
  const set = m.byIo.get(c.insertion_order_id) ?? new Set();
  set.add(c.id);
  m.byIo.set(c.insertion_order_id, set);
  m.sums.set(c.insertion_order_id, (m.sums.get(c.insertion_order_id) ?? 0) + c.budget_impressions);
}

/** G8 problems of one campaign against its insertion order, as sentences. */
function campaignProblems(m: Model, c: Camp): string[] {
  const io = m.ios.get(c.insertion_order_id);
  if (!io) return [];
  const out: string[] = [];
  const label = `campaign ${io.id}/${c.name}`;
  if (cmp(c.start_time, c.end_time) >= 0) {
    out.push(`${label}: start_time ${c.start_time} is not before end_time ${c.end_time}`);
  } else if (cmp(c.start_time, io.start_time) < 0 || cmp(c.end_time, io.end_time) > 0) {
    out.push(
      `${label}: flight ${c.start_time} to ${c.end_time} is outside insertion order ${io.id}'s flight ${io.start_time} to ${io.end_time}`,
    );
  }
  if (io.budget_money !== null && c.cpm.currency_code !== io.budget_money.currency_code) {
    out.push(
      `${label}: cpm in ${c.cpm.currency_code} but insertion order ${io.id}'s budget_money is in ${io.budget_money.currency_code}`,
    );
  }
  return at(m, m.declared.campaigns.get(`${io.id}/${c.name}`), out);
}

/** G8 problems of an insertion order itself: its flight and its campaigns' budget sum. */
function insertionOrderProblems(m: Model, ioId: string): string[] {
  const io = m.ios.get(ioId);
  if (!io) return [];
  const out: string[] = [];
  if (cmp(io.start_time, io.end_time) >= 0) {
    out.push(`insertion order ${ioId}: start_time ${io.start_time} is not before end_time ${io.end_time}`);
  }
  const sum = m.sums.get(ioId) ?? 0;
  if (io.budget_impressions !== null && sum > io.budget_impressions) {
    out.push(
      `insertion order ${ioId}: campaign budgets add up to ${sum.toLocaleString("en-US")} impressions, over its budget_impressions ${io.budget_impressions.toLocaleString("en-US")}; the sum counts ${budgetTerms(m, ioId)}`,
    );
  }
  return at(m, m.declared.ios.get(ioId), out);
}

/** The campaigns a budget sum counts, each at its config line or marked as not in the config. */
function budgetTerms(m: Model, ioId: string): string {
  const SHOWN = 10;
  const terms = [...(m.byIo.get(ioId) ?? [])].map((id) => {
    const c = m.campaigns.get(id)!;
    const place = m.declared.campaigns.get(`${ioId}/${c.name}`);
    const where = place ? `${place.file}:${place.line}` : "live, not in the config";
    return `"${printable(c.name)}" ${c.budget_impressions.toLocaleString("en-US")} (${where})`;
  });
  const more = terms.length > SHOWN ? ` and ${terms.length - SHOWN} more` : "";
  return `${terms.slice(0, SHOWN).join(", ")}${more}`;
}

/** Remembers the config place each problem sentence is about, and returns them. */
function at(m: Model, source: SourceRef | undefined, problems: string[]): string[] {
  if (source !== undefined) for (const p of problems) m.problemSources.set(p, source);
  return problems;
}

type Items = Array<Record<string, unknown>>;

interface Step {
  /** Insertion orders whose own fields changed: all their campaigns need checking. */
  ios: Set<string>;
  campaigns: Set<string>;
  violations: string[];
}

/** Carries one planned request out on the model; says what it touched and what it broke (G5). */
function replayRequest(m: Model, request: PlannedRequest): Step {
  const step: Step = { ios: new Set(), campaigns: new Set(), violations: [] };
  const body = request.body as Record<string, unknown>;
  if (request.path.endsWith("/insertion_orders")) {
    for (const item of body.insertion_orders as Items) {
      const io = m.ios.get(item.id as string);
      if (!io) continue;
      Object.assign(io, item);
      step.ios.add(io.id);
    }
  } else if (request.method === "POST" && request.path.endsWith("/campaigns")) {
    (body.campaigns as Items).forEach((item, i) => {
      const placeholder = Placeholder.make(request.item_change_ids[i]?.[0] ?? "");
      addCampaign(m, { ...(item as unknown as Camp), id: placeholder, active: false });
      step.campaigns.add(placeholder);
    });
  } else if (request.method === "PATCH" && request.path.endsWith("/campaigns")) {
    for (const item of body.campaigns as Items) {
      const c = m.campaigns.get(item.id as string);
      if (!c) continue;
      const before = c.budget_impressions;
      Object.assign(c, item);
      m.sums.set(
        c.insertion_order_id,
        (m.sums.get(c.insertion_order_id) ?? 0) - before + c.budget_impressions,
      );
      step.campaigns.add(c.id);
    }
  } else if (request.method === "PUT") {
    const id = decodeURIComponent(request.path.split("/").at(-2) ?? "");
    const c = m.campaigns.get(id);
    const after = (body.targetings ?? []) as TargetingOptionSet[];
    const { removed } = Targeting.difference(m.targetings.get(id) ?? [], after);
    if (c?.active && removed.length > 0) {
      step.violations.push(
        `campaign ${c.insertion_order_id}/${c.name} would lose a targeting option set while active (see docs/assumptions.md#g5)`,
      );
    }
    m.targetings.set(id, after);
  }
  return step;
}

function stepProblems(m: Model, step: Step): string[] {
  const out: string[] = [];
  const ios = new Set(step.ios);
  for (const id of step.campaigns) {
    const c = m.campaigns.get(id)!;
    ios.add(c.insertion_order_id);
    if (!step.ios.has(c.insertion_order_id)) append(out, campaignProblems(m, c));
  }
  for (const ioId of step.ios) {
    for (const id of m.byIo.get(ioId) ?? []) append(out, campaignProblems(m, m.campaigns.get(id)!));
  }
  for (const ioId of ios) append(out, insertionOrderProblems(m, ioId));
  return out;
}

export function simulate(
  live: LiveState,
  requests: readonly PlannedRequest[],
  desired?: DesiredState,
): Finding[] {
  const m = model(live, desired);
  const everTouched: Step = { ios: new Set(), campaigns: new Set(), violations: [] };
  const onTheWay = new Map<string, number>();
  for (const request of requests) {
    const step = replayRequest(m, request);
    for (const v of step.violations) if (!onTheWay.has(v)) onTheWay.set(v, request.seq);
    for (const p of stepProblems(m, step)) if (!onTheWay.has(p)) onTheWay.set(p, request.seq);
    for (const id of step.ios) everTouched.ios.add(id);
    for (const id of step.campaigns) everTouched.campaigns.add(id);
  }
  const atEnd = new Set(stepProblems(m, everTouched));
  const findings: Finding[] = [];
  for (const p of atEnd) {
    findings.push(
      finding(
        "DOOH701",
        `the desired state breaks a rule the DSP enforces on every write (see docs/assumptions.md#g8): ${p}`,
        { source: m.problemSources.get(p) },
      ),
    );
  }
  for (const [p, seq] of onTheWay) {
    if (atEnd.has(p)) continue;
    findings.push(
      finding(
        "DOOH702",
        `no safe order found: after request ${seq}, ${p}; split the change into two applies`,
      ),
    );
  }
  return findings;
}
