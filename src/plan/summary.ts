/** The plan's summary: counts, the apply-time estimate, each insertion order's deltas for a reviewer. */
import type { DesiredState } from "../model/desired.js";
import { RateLimit } from "../model/limits.js";
import { Money } from "../model/money.js";
import { count, grouped } from "../model/plural.js";
import { deactivates } from "./changes/changes.js";
import type {
  Change,
  ChangedScope,
  ChangeKind,
  InsertionOrderDelta,
  PauseSummary,
  PlannedRequest,
  PlanOptions,
  PlanSummary,
} from "./types.js";
import { writeSendTimes } from "./window.js";

function signed(n: number): string {
  return `${n > 0 ? "+" : ""}${grouped(n)}`;
}

function amount(m: Money): string {
  return Money.formatGrouped(m).split(" ")[0] ?? "";
}

function insertionOrderLines(changes: readonly Change[]): InsertionOrderDelta[] {
  const lines = new Map<string, string[]>();
  const cpm = new Map<string, Map<string, number>>();
  const impressions = new Map<string, { delta: number; created: number }>();
  const add = (io: string, line: string) => lines.set(io, [...(lines.get(io) ?? []), line]);
  const counted = new Map<string, { paused: number; deactivated: number }>();
  const tally = (io: string) => {
    const c = counted.get(io) ?? { paused: 0, deactivated: 0 };
    counted.set(io, c);
    return c;
  };
  for (const change of changes) {
    if (change.kind === "update_insertion_order") {
      for (const f of change.fields) {
        if (f.field === "budget_impressions") {
          const delta =
            typeof f.before === "number" && typeof f.after === "number"
              ? ` (${signed(f.after - f.before)})`
              : "";
          const show = (v: unknown) => (typeof v === "number" ? grouped(v) : "none");
          add(change.insertion_order_id, `budget_impressions ${show(f.before)} -> ${show(f.after)}${delta}`);
        } else if (f.field === "budget_money") {
          const b = Money.fromValue(f.before) ?? null;
          const a = Money.fromValue(f.after) ?? null;
          add(
            change.insertion_order_id,
            a && b && a.currency_code === b.currency_code
              ? `budget_money ${Money.formatAmount(b)} -> ${Money.formatAmount(a)} (${Money.formatAmount(Money.subtract(a, b), { signed: true })})`
              : `budget_money ${b ? Money.formatAmount(b) : "none"} -> ${a ? Money.formatAmount(a) : "none"}`,
          );
        } else if (f.field === "start_time" || f.field === "end_time") {
          add(change.insertion_order_id, `${f.field} ${f.before} -> ${f.after}`);
        }
      }
      continue;
    }
    if (change.kind === "update_creative") continue;
    const io = change.campaign.insertion_order_id;
    if (change.kind === "update_campaign" || change.kind === "create_campaign") {
      for (const f of change.fields) {
        if (f.field === "cpm" && change.kind === "update_campaign") {
          const b = Money.fromValue(f.before) ?? null;
          const a = Money.fromValue(f.after) ?? null;
          if (!a || !b) continue;
          const key =
            a.currency_code === b.currency_code
              ? `cpm ${amount(b)} -> ${amount(a)} ${a.currency_code}`
              : `cpm ${Money.formatGrouped(b)} -> ${Money.formatGrouped(a)}`;
          const perIo = cpm.get(io) ?? new Map<string, number>();
          perIo.set(key, (perIo.get(key) ?? 0) + 1);
          cpm.set(io, perIo);
        }
        if (f.field === "budget_impressions" && typeof f.after === "number") {
          const entry = impressions.get(io) ?? { delta: 0, created: 0 };
          entry.delta += f.after - (typeof f.before === "number" ? f.before : 0);
          if (change.kind === "create_campaign") entry.created++;
          impressions.set(io, entry);
        }
      }
    }
    if (deactivates(change)) tally(io).deactivated++;
    if (change.kind === "replace_targetings" && change.pause) tally(io).paused++;
  }
  for (const [io, perIo] of cpm) {
    for (const [key, n] of perIo) add(io, `${key} on ${count(n, "campaign")}`);
  }
  for (const [io, { delta, created }] of impressions) {
    if (delta === 0 && created === 0) continue;
    add(
      io,
      `campaign budgets ${signed(delta)} impressions${created > 0 ? ` (${count(created, "new campaign")})` : ""}`,
    );
  }
  for (const [io, c] of counted) {
    if (c.paused > 0) add(io, `${count(c.paused, "campaign")} paused during apply for targeting changes`);
    if (c.deactivated > 0) add(io, `${count(c.deactivated, "campaign")} deactivated`);
  }
  return [...lines.entries()].map(([insertion_order_id, l]) => ({ insertion_order_id, lines: l }));
}

/** Whether the policy was compared with a base, and what loosened; undefined without a policy. */
function policySummary(desired: DesiredState, changed: ChangedScope | undefined): PlanSummary["policy"] {
  const declared =
    desired.policy !== undefined || desired.insertionOrders.some((io) => io.policy !== undefined);
  if (!declared && !changed?.loosened_policy) return undefined;
  if (!changed) return { loosened: [] };
  return { compared_with: `${changed.since} (${changed.commit})`, loosened: changed.loosened_policy ?? [] };
}

/** The plan's summary, once its requests are final: `pauses` only with requests to apply. */
export function planSummary(input: {
  desired: DesiredState;
  options: PlanOptions;
  readRequests: number;
  changes: readonly Change[];
  requests: readonly PlannedRequest[];
  money: Pick<PlanSummary, "spend" | "campaign_spend" | "budget_money">;
  pauses: PauseSummary | undefined;
}): PlanSummary {
  const { changes, requests, options } = input;
  const actions: Partial<Record<ChangeKind, number>> = {};
  for (const change of changes) actions[change.kind] = (actions[change.kind] ?? 0) + 1;
  const order = new Map(input.desired.insertionOrders.map((io, i) => [io.id, i]));
  const busy = (options.writeWindowBusyMs ?? []).filter((ms) => ms > 0);
  const deltas = insertionOrderLines(changes).sort(
    (a, b) => (order.get(a.insertion_order_id) ?? 0) - (order.get(b.insertion_order_id) ?? 0),
  );
  const policy = policySummary(input.desired, options.changed);
  return {
    actions,
    write_requests: requests.length,
    read_requests: input.readRequests,
    // When the last write may go at the write window as it stands (window.ts): window-bound.
    estimated_apply_ms: writeSendTimes(requests.length, options.rateLimits.write, busy).at(-1) ?? 0,
    write_window: RateLimit.formatWindow(options.rateLimits.write),
    ...(busy.length > 0 ? { write_slots_in_use: busy.length } : {}),
    insertion_orders: deltas,
    ...input.money,
    ...(policy ? { policy } : {}),
    ...(input.pauses && requests.length > 0 ? { pauses: input.pauses } : {}),
  };
}
