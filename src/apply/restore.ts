/** Delivery first (ARCHITECTURE.md#recovery-record): after a stop, what the apply paused is reactivated. */
import type { DspClient } from "../api/types.js";
import { count } from "../model/plural.js";
import { type Campaign, MAX_BATCH } from "../model/wire.js";
import type { ApplyListener } from "./events.js";

/** The recovery record seen by apply: told before a pause and after a confirmed reactivation. */
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

/** Read right before a reactivation PATCH: some of its campaigns are no longer inactive. */
class Moved extends Error {
  constructor(readonly live: readonly Campaign[]) {
    super("internal: campaigns moved before their reactivation was sent");
  }
}

/**
 * Reactivates, one PATCH per 100, what this apply paused and left. Each PATCH reads its campaigns
 * right before it goes (BeforeSend, api/types.ts) and carries only those still inactive. One whose
 * targeting PUT has not landed returns to its state before the apply, so I1 holds.
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
  // Neither read back nor reactivated: never counted as restored.
  const unseen: string[] = [];
  const stillInactive: string[] = [];
  const say = (message: string) => input.emit({ type: "check", seq: 0, message });
  const options = signal ? { signal } : {};
  try {
    input.emit({ type: "restore", campaigns: input.campaignIds.length });
    say(
      `reactivating ${count(input.campaignIds.length, "campaign")} this apply paused: ${input.campaignIds.join(", ")}`,
    );
    for (let at = 0; at < input.campaignIds.length; at += MAX_BATCH) {
      // Each Moved leaves fewer to send: the loop ends.
      for (let chunk = input.campaignIds.slice(at, at + MAX_BATCH); chunk.length > 0; ) {
        const sending = chunk;
        try {
          const answer = await client.send(
            client.endpoints.patchCampaigns(sending.map((id) => ({ id, active: true }))),
            {
              ...options,
              items: sending.length,
              beforeSend: async () => {
                const live = await client.getCampaigns(sending, options);
                if (!sending.every((id) => live.some((c) => c.id === id && !c.active))) throw new Moved(live);
              },
            },
          );
          // Restored is what the DSP's answer shows active, not what was asked for.
          const active = new Set((answer?.campaigns ?? []).filter((c) => c.active).map((c) => c.id));
          for (const id of sending) (active.has(id) ? restored : stillInactive).push(id);
          chunk = [];
        } catch (error) {
          if (!(error instanceof Moved)) throw error;
          const live = new Map(error.live.map((c) => [c.id, c]));
          chunk = sending.filter((id) => live.get(id)?.active === false);
          restored.push(...sending.filter((id) => live.get(id)?.active === true));
          unseen.push(...sending.filter((id) => !live.has(id)));
        }
      }
    }
    input.recovery?.reactivated(restored);
    const missed = [...unseen, ...stillInactive];
    if (missed.length > 0) {
      const error = `${count(missed.length, "campaign")} not active after the reactivation request: ${missed.join(", ")}${unseen.length > 0 ? ` (not read back: ${unseen.join(", ")})` : ""}`;
      say(
        `could not reactivate every paused campaign (${error}); the recovery record keeps them for the next plan`,
      );
      return { restored, error };
    }
    say(`delivery restored: ${count(restored.length, "campaign")} active again`);
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
