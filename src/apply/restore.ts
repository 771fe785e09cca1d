/**
 * Delivery first, after a stop (ARCHITECTURE.md#recovery-record): the campaigns an apply paused
 * for targeting changes and did not reactivate are reactivated before it reports.
 */
import type { DspClient } from "../api/types.js";
import { MAX_BATCH } from "../model/wire.js";
import type { ApplyListener } from "./events.js";

/**
 * The recovery record as apply sees it (recovery.ts implements it on disk): told before a
 * pause is sent and after a reactivation is confirmed.
 */
export interface RecoveryPort {
  /** Durably records campaigns about to be paused; throws when it cannot (nothing is sent then). */
  pausing(
    entries: { campaign_id: string; insertion_order_id: string; name: string; paused_at: string }[],
  ): void;
  /** Campaigns the DSP confirmed active. */
  reactivated(campaignIds: string[]): void;
}

export interface RestoreOutcome {
  /** Campaigns active again: reactivated now, or found active already. */
  restored: string[];
  error?: string;
}

/**
 * After a stop (interruption or failure), delivery first: the campaigns this apply paused
 * and did not reactivate are read (one GET per 100) and those still inactive are reactivated
 * (one PATCH per 100). A campaign whose targeting PUT has not landed goes back to exactly its
 * state before the apply, so I1 holds; one whose PUT landed serves its new targetings.
 */
export async function restoreDelivery(input: {
  client: DspClient;
  campaignIds: string[];
  signal: AbortSignal | undefined;
  recovery: RecoveryPort | undefined;
  emit: ApplyListener;
}): Promise<RestoreOutcome> {
  const { client, signal } = input;
  const restored: string[] = [];
  const say = (message: string) => input.emit({ type: "check", seq: 0, message });
  try {
    input.emit({ type: "restore", campaigns: input.campaignIds.length });
    say(
      `reactivating ${campaigns(input.campaignIds.length)} this apply paused: ${input.campaignIds.join(", ")}`,
    );
    const live = await client.getCampaigns(input.campaignIds, signal ? { signal } : {});
    const inactive = new Set(live.filter((c) => !c.active).map((c) => c.id));
    const already = input.campaignIds.filter((id) => live.some((c) => c.id === id) && !inactive.has(id));
    restored.push(...already);
    const ids = input.campaignIds.filter((id) => inactive.has(id));
    // Neither read back nor reactivated: never counted as restored.
    const unseen = input.campaignIds.filter((id) => !live.some((c) => c.id === id));
    const stillInactive: string[] = [];
    for (let at = 0; at < ids.length; at += MAX_BATCH) {
      const chunk = ids.slice(at, at + MAX_BATCH);
      const answer = await client.send(
        client.endpoints.patchCampaigns(chunk.map((id) => ({ id, active: true }))),
        signal ? { signal, items: chunk.length } : { items: chunk.length },
      );
      // Restored is what the DSP's answer shows active, not what was asked for.
      const active = new Set((answer?.campaigns ?? []).filter((c) => c.active).map((c) => c.id));
      for (const id of chunk) (active.has(id) ? restored : stillInactive).push(id);
    }
    input.recovery?.reactivated(restored);
    const missed = [...unseen, ...stillInactive];
    if (missed.length > 0) {
      const error = `${campaigns(missed.length)} not active after the reactivation request: ${missed.join(", ")}${unseen.length > 0 ? ` (not read back: ${unseen.join(", ")})` : ""}`;
      say(
        `could not reactivate every paused campaign (${error}); the recovery record keeps them for the next plan`,
      );
      return { restored, error };
    }
    say(`delivery restored: ${campaigns(restored.length)} active again`);
    return { restored };
  } catch (error) {
    if (restored.length > 0) input.recovery?.reactivated(restored);
    const message = error instanceof Error ? error.message : String(error);
    say(
      `could not reactivate every paused campaign (${message}); the recovery record keeps them for the next plan`,
    );
    return { restored, error: message };
  }
}

const campaigns = (n: number) => (n === 1 ? "1 campaign" : `${n} campaigns`);
