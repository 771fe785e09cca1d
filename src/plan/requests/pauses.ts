/**
 * Where a plan pauses and reactivates each campaign whose targetings change while it is
 * active (I1, G5): read from the requests themselves (the PATCH /campaigns item that sets
 * `active: false`, and the later one that sets `active: true`), so every consumer (the
 * estimate, the renderers, the applier's recovery record) agrees with what is sent.
 */
import type { RateLimits } from "../../model/limits.js";
import type { Plan, PlannedRequest } from "../types.js";

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

/** Estimated dark time of a span at the write window: one write interval per request after the pause. */
export function darkMs(span: PauseSpan, rateLimits: RateLimits): number | undefined {
  if (span.resume_seq === undefined) return undefined;
  return ((span.resume_seq - span.pause_seq) * rateLimits.write.windowMs) / rateLimits.write.limit;
}
