/**
 * Replays the planned requests on a model of the live state and checks, after each one,
 * the rules the DSP enforces (G8) and the targeting rule (G5). A rule broken at the end
 * means the desired state itself cannot exist (DOOH701); one broken only on the way means
 * no safe order was found (DOOH702). Either way the plan is refused before any write.
 */
import { Targeting, type TargetingOptionSet } from "../model/targeting.js";
import { Time } from "../model/time.js";
import type { Campaign, InsertionOrder } from "../model/wire.js";
import { finding } from "./findings.js";
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
  targetings: Map<string, TargetingOptionSet[]>;
}

function model(live: LiveState): Model {
  const m: Model = { ios: new Map(), campaigns: new Map(), byIo: new Map(), targetings: new Map() };
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
}

/** G8 problems of one insertion order and its campaigns, as sentences. */
function problems(m: Model, ioId: string): string[] {
  const io = m.ios.get(ioId);
  if (!io) return [];
  const out: string[] = [];
  let sum = 0;
  for (const id of m.byIo.get(ioId) ?? []) {
    const c = m.campaigns.get(id)!;
    sum += c.budget_impressions;
    const label = `campaign ${ioId}/${c.name}`;
    if (Time.compare(c.start_time, c.end_time) >= 0) {
      out.push(`${label}: start_time ${c.start_time} is not before end_time ${c.end_time}`);
    } else if (Time.compare(c.start_time, io.start_time) < 0 || Time.compare(c.end_time, io.end_time) > 0) {
      out.push(
        `${label}: flight ${c.start_time} to ${c.end_time} is outside insertion order ${ioId}'s flight ${io.start_time} to ${io.end_time}`,
      );
    }
    if (io.budget_money !== null && c.cpm.currency_code !== io.budget_money.currency_code) {
      out.push(
        `${label}: cpm in ${c.cpm.currency_code} but insertion order ${ioId}'s budget_money is in ${io.budget_money.currency_code}`,
      );
    }
  }
  if (Time.compare(io.start_time, io.end_time) >= 0) {
    out.push(`insertion order ${ioId}: start_time ${io.start_time} is not before end_time ${io.end_time}`);
  }
  if (io.budget_impressions !== null && sum > io.budget_impressions) {
    out.push(
      `insertion order ${ioId}: campaign budgets add up to ${sum.toLocaleString("en-US")} impressions, over its budget_impressions ${io.budget_impressions.toLocaleString("en-US")}`,
    );
  }
  return out;
}

type Items = Array<Record<string, unknown>>;

function apply(m: Model, request: PlannedRequest): { touched: Set<string>; violations: string[] } {
  const touched = new Set<string>();
  const violations: string[] = [];
  const body = request.body as Record<string, unknown>;
  if (request.path.endsWith("/insertion_orders")) {
    for (const item of body.insertion_orders as Items) {
      const io = m.ios.get(item.id as string);
      if (!io) continue;
      Object.assign(io, item);
      touched.add(io.id);
    }
  } else if (request.method === "POST" && request.path.endsWith("/campaigns")) {
    (body.campaigns as Items).forEach((item, i) => {
      const placeholder = `<new:${request.item_change_ids[i]?.[0]}>`;
      addCampaign(m, { ...(item as unknown as Camp), id: placeholder, active: false });
      touched.add(item.insertion_order_id as string);
    });
  } else if (request.method === "PATCH" && request.path.endsWith("/campaigns")) {
    for (const item of body.campaigns as Items) {
      const c = m.campaigns.get(item.id as string);
      if (!c) continue;
      Object.assign(c, item);
      touched.add(c.insertion_order_id);
    }
  } else if (request.method === "PUT") {
    const id = decodeURIComponent(request.path.split("/").at(-2) ?? "");
    const c = m.campaigns.get(id);
    const after = (body.targetings ?? []) as TargetingOptionSet[];
    const { removed } = Targeting.difference(m.targetings.get(id) ?? [], after);
    if (c?.active && removed.length > 0) {
      violations.push(
        `campaign ${c.insertion_order_id}/${c.name} would lose a targeting option set while active (G5)`,
      );
    }
    m.targetings.set(id, after);
  }
  return { touched, violations };
}

export function simulate(live: LiveState, requests: readonly PlannedRequest[]): Finding[] {
  const m = model(live);
  const everTouched = new Set<string>();
  const onTheWay = new Map<string, number>();
  for (const request of requests) {
    const { touched, violations } = apply(m, request);
    for (const v of violations) onTheWay.set(v, onTheWay.get(v) ?? request.seq);
    for (const ioId of touched) {
      everTouched.add(ioId);
      for (const p of problems(m, ioId)) if (!onTheWay.has(p)) onTheWay.set(p, request.seq);
    }
  }
  const atEnd = new Set([...everTouched].flatMap((ioId) => problems(m, ioId)));
  const findings: Finding[] = [];
  for (const p of atEnd) {
    findings.push(finding("DOOH701", "error", `the desired state breaks a rule the DSP enforces (G8): ${p}`));
  }
  for (const [p, seq] of onTheWay) {
    if (atEnd.has(p)) continue;
    findings.push(
      finding(
        "DOOH702",
        "error",
        `no safe order found: after request ${seq}, ${p}; split the change into two applies`,
      ),
    );
  }
  return findings;
}
