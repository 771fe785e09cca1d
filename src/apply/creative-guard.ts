/**
 * Phase 5 writes each creative's whole `campaign_ids` list (absolute values keep PATCH
 * idempotent). An association someone added after the plan was read would be silently
 * dropped by that list, so right before each creative batch the creatives it names are read
 * again (one GET per 100) and compared with what the plan saw. Any difference stops the apply
 * before the batch is sent; a new plan then takes the other edit into account.
 */
import type { DspClient } from "../api/types.js";
import { canonicalJson, creativeSnapshot } from "../plan/fingerprint.js";
import type { Plan } from "../plan/types.js";

export class ConcurrentChangeError extends Error {
  override readonly name = "ConcurrentChangeError";
  readonly code = "APPLY_CONCURRENT_CHANGE";
}

function creativeIdsOf(body: unknown): string[] {
  const items = (body as { creatives?: { id?: unknown }[] } | null)?.creatives ?? [];
  return items.flatMap((item) => (typeof item.id === "string" ? [item.id] : []));
}

/** Throws ConcurrentChangeError naming each creative (and field) that moved since the plan. */
export async function checkCreativesUnchanged(input: {
  client: DspClient;
  plan: Plan;
  body: unknown;
  signal?: AbortSignal | undefined;
}): Promise<void> {
  const ids = creativeIdsOf(input.body);
  const seen = new Map(
    input.plan.fingerprints.filter((f) => f.kind === "creative").map((f) => [f.id, f.snapshot]),
  );
  const checked = ids.filter((id) => seen.has(id));
  if (checked.length === 0) return;
  const live = await input.client.getCreatives(checked, input.signal ? { signal: input.signal } : {});
  const liveById = new Map(live.map((c) => [c.id, creativeSnapshot(c) as Record<string, unknown>]));
  const moved: string[] = [];
  for (const id of checked) {
    const before = seen.get(id) as Record<string, unknown>;
    const now = liveById.get(id);
    if (now === undefined) {
      moved.push(`creative ${id} no longer exists`);
      continue;
    }
    const fields = Object.keys(before).filter((k) => canonicalJson(before[k]) !== canonicalJson(now[k]));
    for (const field of fields) {
      moved.push(`creative ${id}: ${field} ${canonicalJson(before[field])} -> ${canonicalJson(now[field])}`);
    }
  }
  if (moved.length > 0) {
    throw new ConcurrentChangeError(
      `changed by someone else since the plan was made, so this batch was not sent (it would undo the edit): ${moved.join("; ")}. Run doohctl plan again`,
    );
  }
}
