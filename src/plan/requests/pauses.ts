/**
 * Where a plan pauses and reactivates each campaign for a targeting change (I1, G5), read from the
 * requests themselves, so the estimate, the renderers and the recovery record agree with them.
 */
import { largest } from "../../model/append.js";
import type { PauseSummary, Plan, PlannedRequest, PlanOptions } from "../types.js";
import { spanMs, writeSendTimes } from "../window.js";
import type { Schedule } from "./schedule.js";

export interface PauseSpan {
  /** The `replace_targetings` change that needs the pause. */
  change_id: string;
  address: string;
  campaign_id: string;
  insertion_order_id: string;
  name: string;
  /** The request that pauses it, and the one that reactivates it (undefined: never). */
  pause_seq: number;
  resume_seq: number | undefined;
}

/** The `active` value each campaign item of a PATCH /campaigns request sets. */
export function activeItems(request: { method: string; path: string; body: unknown }): Map<string, boolean> {
  const out = new Map<string, boolean>();
  if (request.method !== "PATCH" || !request.path.endsWith("/campaigns")) return out;
  const items = (request.body as { campaigns?: unknown } | null)?.campaigns;
  if (!Array.isArray(items)) return out;
  for (const item of items as { id?: unknown; active?: unknown }[]) {
    if (typeof item.id === "string" && typeof item.active === "boolean") out.set(item.id, item.active);
  }
  return out;
}

export function pauseSpans(plan: {
  changes: readonly Plan["changes"][number][];
  requests: readonly PlannedRequest[];
}): PauseSpan[] {
  const spans: PauseSpan[] = [];
  const wanted = new Map<string, Omit<PauseSpan, "campaign_id" | "pause_seq" | "resume_seq">>();
  for (const change of plan.changes) {
    if (change.kind !== "replace_targetings" || !change.pause || !change.campaign.campaign_id) continue;
    wanted.set(change.campaign.campaign_id, {
      change_id: change.id,
      address: change.address,
      insertion_order_id: change.campaign.insertion_order_id,
      name: change.campaign.name,
    });
  }
  const open = new Map<string, PauseSpan>();
  for (const request of plan.requests) {
    for (const [id, active] of activeItems(request)) {
      const ref = wanted.get(id);
      if (!ref) continue;
      if (!active && !open.has(id)) {
        const span: PauseSpan = { ...ref, campaign_id: id, pause_seq: request.seq, resume_seq: undefined };
        open.set(id, span);
        spans.push(span);
      } else if (active && open.get(id)?.resume_seq === undefined && open.has(id)) {
        open.get(id)!.resume_seq = request.seq;
      }
    }
  }
  return spans;
}

/**
 * How long paused campaigns stay dark, at the window as it stands (window.ts); the layout was
 * chosen (and --max-pause held) at its steady pace, which holds however busy it is.
 */
export function pauseSummary(
  { requests, pauses }: Schedule,
  changes: Plan["changes"],
  options: Pick<PlanOptions, "rateLimits" | "writeWindowBusyMs" | "maxPauseMs">,
): PauseSummary | undefined {
  const spans = pauseSpans({ changes, requests });
  if (spans.length === 0) return undefined;
  const { rateLimits, writeWindowBusyMs, maxPauseMs } = options;
  const times = writeSendTimes(requests.length, rateLimits.write, writeWindowBusyMs);
  const dark = spans.map((s) => (s.resume_seq === undefined ? 0 : spanMs(times, s.pause_seq, s.resume_seq)));
  return {
    campaigns: spans.length,
    mean_dark_ms: Math.round(dark.reduce((a, b) => a + b, 0) / dark.length),
    max_dark_ms: largest(dark),
    extra_writes: pauses.layout.writes - pauses.minimumWrites,
    ...(maxPauseMs !== undefined ? { max_pause_ms: maxPauseMs } : {}),
  };
}
