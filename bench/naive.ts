/**
 * What a generic REST reconciler sends for the same plan: one object per request. Every item
 * of a batch `PATCH /campaigns` (or `/creatives`, `/insertion_orders`) becomes its own
 * `PATCH /<resource>/{id}` with the same properties, in the same order, so the phases and
 * the pauses of I1 are kept and only the batching is lost. PUTs are one per campaign anyway;
 * a POST of new campaigns stays as it is (the API has no single-object create).
 */
import type { JsonValue, Plan, PlannedRequest } from "../src/plan/types.js";

const BATCH_PATHS = new Set(["campaigns", "creatives", "insertion_orders"]);

function split(request: PlannedRequest): Omit<PlannedRequest, "seq">[] {
  const resource = request.path.split("/").at(-1) ?? "";
  const body = request.body as { [key: string]: JsonValue } | null;
  const items = body?.[resource];
  if (request.method !== "PATCH" || !BATCH_PATHS.has(resource) || !Array.isArray(items)) return [request];
  return items.map((item, index) => {
    const { id, ...properties } = item as { id: string; [key: string]: JsonValue };
    const changeIds = request.item_change_ids[index] ?? [];
    return {
      phase: request.phase,
      method: "PATCH",
      path: `${request.path}/${id}`,
      body: properties,
      items: 1,
      change_ids: changeIds,
      item_change_ids: [changeIds],
      description: `PATCH ${resource} ${id}`,
    };
  });
}

export function onePerRequest(plan: Plan): Plan {
  const requests = plan.requests.flatMap(split).map((r, i) => ({ ...r, seq: i + 1 }));
  return { ...plan, requests };
}
