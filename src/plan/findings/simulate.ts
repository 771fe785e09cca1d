/**
 * Replays the requests on a model of the live state, checking after each G8 (write-rules.ts) and
 * G5: broken at the end, the desired state cannot exist (DOOH701); only on the way, no safe order
 * was found (DOOH702). Either way no write is sent.
 */
import { createdItems } from "../../api/endpoints.js";
import { append } from "../../model/append.js";
import type { DesiredState, SourceRef } from "../../model/desired.js";
import { DEFAULT_DIALECT, type Dialect } from "../../model/dialect.js";
import { grouped } from "../../model/plural.js";
import { printable } from "../../model/printable.js";
import { Targeting, type TargetingOptionSet } from "../../model/targeting.js";
import type { Campaign, InsertionOrder } from "../../model/wire.js";
import { WriteRules } from "../../model/write-rules.js";
import { Placeholder } from "../changes/placeholder.js";
import { finding } from "../finding-catalogue.js";
import type { LiveIndex } from "../live-index.js";
import type { Finding, LiveState, PlannedRequest } from "../types.js";

type Io = Pick<InsertionOrder, "id" | "start_time" | "end_time" | "budget_impressions" | "budget_money">;
type Camp = Pick<
  Campaign,
  "id" | "insertion_order_id" | "name" | "active" | "start_time" | "end_time" | "budget_impressions" | "cpm"
>;

/** The state the requests so far leave: the live index, with copies of what they changed. */
interface Model {
  live: LiveIndex;
  liveTargetings: LiveState["targetings"];
  /** Copies of the insertion orders the requests changed. */
  ios: Map<string, Io>;
  /** Copies of the campaigns the requests changed, and the campaigns they created. */
  campaigns: Map<string, Camp>;
  /** Campaigns created per insertion order, after its live ones. */
  created: Map<string, string[]>;
  /** Sum of campaign budgets per insertion order, counted when first needed, kept as campaigns change. */
  sums: Map<string, number>;
  targetings: Map<string, TargetingOptionSet[]>;
  /** Where the config declares each insertion order, and each campaign by `io/name`. */
  declared: { ios: Map<string, SourceRef>; campaigns: Map<string, SourceRef> };
  /** The config place a problem sentence is about, for the finding's file:line. */
  problemSources: Map<string, SourceRef>;
}

function model(input: SimulateInput): Model {
  const m: Model = {
    live: input.live,
    liveTargetings: input.targetings,
    ios: new Map(),
    campaigns: new Map(),
    created: new Map(),
    sums: new Map(),
    targetings: new Map(),
    declared: { ios: new Map(), campaigns: new Map() },
    problemSources: new Map(),
  };
  for (const io of input.desired?.insertionOrders ?? []) {
    m.declared.ios.set(io.id, io.source);
    for (const c of io.campaigns) m.declared.campaigns.set(`${io.id}/${c.name}`, c.source);
  }
  return m;
}

function insertionOrderOf(m: Model, id: string): Io | undefined {
  return m.ios.get(id) ?? m.live.insertionOrders.get(id);
}

function campaignOf(m: Model, id: string): Camp | undefined {
  return m.campaigns.get(id) ?? m.live.campaigns.get(id);
}

/** The ids of an insertion order's campaigns: live ones in the order read, then created ones. */
function* campaignIdsOf(m: Model, ioId: string): Iterable<string> {
  for (const c of m.live.campaignsOf(ioId)) yield c.id;
  yield* m.created.get(ioId) ?? [];
}

function sumOf(m: Model, ioId: string): number {
  let sum = m.sums.get(ioId);
  if (sum === undefined) {
    sum = 0;
    for (const id of campaignIdsOf(m, ioId)) sum += campaignOf(m, id)!.budget_impressions;
    m.sums.set(ioId, sum);
  }
  return sum;
}

function targetingsOf(m: Model, id: string): TargetingOptionSet[] {
  const changed = m.targetings.get(id);
  if (changed !== undefined) return changed;
  return (Object.hasOwn(m.liveTargetings, id) ? m.liveTargetings[id] : undefined) ?? [];
}

/** The model's own copy of a live object, made before its first change. */
function own<T>(copies: Map<string, T>, live: ReadonlyMap<string, T>, id: string): T | undefined {
  const found = copies.get(id) ?? live.get(id);
  if (found !== undefined && !copies.has(id)) copies.set(id, { ...found });
  return copies.get(id);
}

/** G8 problems of one campaign against its insertion order (WriteRules), as sentences. */
function campaignProblems(m: Model, c: Camp): string[] {
  const io = insertionOrderOf(m, c.insertion_order_id);
  if (!io) return [];
  const breaches = WriteRules.campaign(c, io);
  if (breaches.length === 0) return [];
  const out: string[] = [];
  const label = `campaign ${io.id}/${c.name}`;
  // A flight that does not start before it ends is said alone: where it lies says nothing more.
  if (breaches.some((b) => b.rule === "flight_order")) {
    out.push(`${label}: start_time ${c.start_time} is not before end_time ${c.end_time}`);
  } else if (breaches.some((b) => b.rule === "within_flight")) {
    out.push(
      `${label}: flight ${c.start_time} to ${c.end_time} is outside insertion order ${io.id}'s flight ${io.start_time} to ${io.end_time}`,
    );
  }
  for (const b of breaches) {
    if (b.rule !== "currency") continue;
    out.push(
      `${label}: cpm in ${b.currency} but insertion order ${io.id}'s budget_money is in ${b.expected}`,
    );
  }
  return at(m, m.declared.campaigns.get(`${io.id}/${c.name}`), out);
}

/** G8 problems of an insertion order itself (WriteRules): its flight and its campaigns' budget sum. */
function insertionOrderProblems(m: Model, ioId: string): string[] {
  const io = insertionOrderOf(m, ioId);
  if (!io) return [];
  const out: string[] = [];
  for (const b of WriteRules.insertionOrder(io, sumOf(m, ioId))) {
    if (b.rule === "flight_order") {
      out.push(`insertion order ${ioId}: start_time ${io.start_time} is not before end_time ${io.end_time}`);
    } else if (b.rule === "budget_sum") {
      out.push(
        `insertion order ${ioId}: campaign budgets add up to ${grouped(b.sum)} impressions, over its budget_impressions ${grouped(b.budget)}; the sum counts ${budgetTerms(m, ioId)}`,
      );
    }
  }
  return at(m, m.declared.ios.get(ioId), out);
}

/** The campaigns a budget sum counts, each at its config line or marked as not in the config. */
function budgetTerms(m: Model, ioId: string): string {
  const SHOWN = 10;
  const terms = [...campaignIdsOf(m, ioId)].map((id) => {
    const c = campaignOf(m, id)!;
    const place = m.declared.campaigns.get(`${ioId}/${c.name}`);
    const where = place ? `${place.file}:${place.line}` : "live, not in the config";
    return `"${printable(c.name)}" ${grouped(c.budget_impressions)} (${where})`;
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
function replayRequest(m: Model, request: PlannedRequest, dialect: Dialect): Step {
  const step: Step = { ios: new Set(), campaigns: new Set(), violations: [] };
  const body = request.body as Record<string, unknown>;
  if (request.path.endsWith("/insertion_orders")) {
    for (const item of body.insertion_orders as Items) {
      const io = own<Io>(m.ios, m.live.insertionOrders, item.id as string);
      if (!io) continue;
      Object.assign(io, item);
      step.ios.add(io.id);
    }
  } else if (request.method === "POST" && request.path.endsWith("/campaigns")) {
    (createdItems(dialect, body) as Items).forEach((item, i) => {
      const placeholder = Placeholder.make(request.item_change_ids[i]?.[0] ?? "");
      const c: Camp = { ...(item as unknown as Camp), id: placeholder, active: false };
      const ioId = c.insertion_order_id;
      if (m.sums.has(ioId)) m.sums.set(ioId, sumOf(m, ioId) + c.budget_impressions);
      m.campaigns.set(placeholder, c);
      const created = m.created.get(ioId);
      if (created) created.push(placeholder);
      else m.created.set(ioId, [placeholder]);
      step.campaigns.add(placeholder);
    });
  } else if (request.method === "PATCH" && request.path.endsWith("/campaigns")) {
    for (const item of body.campaigns as Items) {
      const c = own<Camp>(m.campaigns, m.live.campaigns, item.id as string);
      if (!c) continue;
      const before = c.budget_impressions;
      Object.assign(c, item);
      const sum = m.sums.get(c.insertion_order_id);
      if (sum !== undefined) m.sums.set(c.insertion_order_id, sum - before + c.budget_impressions);
      step.campaigns.add(c.id);
    }
  } else if (request.method === "PUT") {
    const id = decodeURIComponent(request.path.split("/").at(-2) ?? "");
    const c = campaignOf(m, id);
    const after = (body.targetings ?? []) as TargetingOptionSet[];
    const { removed } = Targeting.difference(targetingsOf(m, id), after);
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
    const c = campaignOf(m, id)!;
    ios.add(c.insertion_order_id);
    if (!step.ios.has(c.insertion_order_id)) append(out, campaignProblems(m, c));
  }
  for (const ioId of step.ios) {
    for (const id of campaignIdsOf(m, ioId)) append(out, campaignProblems(m, campaignOf(m, id)!));
  }
  for (const ioId of ios) append(out, insertionOrderProblems(m, ioId));
  return out;
}

export interface SimulateInput {
  /** The plan's one index of the live state it read (live-index.ts). */
  live: LiveIndex;
  targetings: LiveState["targetings"];
  requests: readonly PlannedRequest[];
  desired?: DesiredState | undefined;
}

export function simulate(input: SimulateInput): Finding[] {
  const { requests } = input;
  const m = model(input);
  const everTouched: Step = { ios: new Set(), campaigns: new Set(), violations: [] };
  const onTheWay = new Map<string, number>();
  for (const request of requests) {
    const step = replayRequest(m, request, input.desired?.connection.dialect ?? DEFAULT_DIALECT);
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
