/**
 * Campaign creation is the one write that is not idempotent (G3: POST /campaigns). When its
 * outcome is unknown (connection lost, timeout, 5xx), the apply lists the insertion orders'
 * campaigns by name to learn what happened: all created -> take their ids and go on; none
 * -> send it once more, now known not to have happened. Never a campaign twice.
 *
 * A 5xx is an answer: the server is done with the request, so the check runs at once. A
 * timed-out request may still be running on a slow server, which could commit it after a
 * check made at once found nothing, and the re-sent POST would then create the campaigns a
 * second time. So only then does the check wait `settleMs` first (with a countdown): a
 * creation still running then had a whole further request timeout to land.
 */

import { createdItems } from "../api/endpoints.js";
import { OutcomeUnknownError } from "../api/errors.js";
import type { ApiRequest, DspClient } from "../api/types.js";
import type { Clock } from "../model/clock.js";
import type { Dialect } from "../model/dialect.js";
import type { Campaign } from "../model/wire.js";

export class CreationCheckError extends Error {
  override readonly name = "CreationCheckError";
  readonly code = "APPLY_CREATION_UNCERTAIN";
}

export interface PostOutcome {
  /** New campaign ids in request order (G3: the answer keeps request order). */
  ids: string[];
  /** The new campaigns as the DSP answered or listed them, in request order. */
  campaigns: Campaign[];
  recovered?: "created" | "retried";
}

interface NewCampaignKey {
  insertion_order_id: string;
  name: string;
}

function keysOf(dialect: Dialect, body: unknown): NewCampaignKey[] {
  const items = createdItems(dialect, body);
  if (!Array.isArray(items)) {
    throw new CreationCheckError(
      `POST /campaigns body has no ${dialect.create_campaigns_member} list (connection.dialect.create_campaigns_member)`,
    );
  }
  return items.map((item: { insertion_order_id?: unknown; name?: unknown }) => ({
    insertion_order_id: String(item.insertion_order_id),
    name: String(item.name),
  }));
}

function campaignsOf(response: unknown, expected: number): Campaign[] {
  const campaigns = (response as { campaigns?: Campaign[] } | null)?.campaigns;
  if (!Array.isArray(campaigns) || campaigns.length !== expected) {
    throw new CreationCheckError(
      `POST /campaigns answered ${Array.isArray(campaigns) ? campaigns.length : "no"} campaigns for ${expected} sent; ` +
        "run plan to see what exists now",
    );
  }
  return campaigns;
}

/** Which of `keys` exist now, by name within their insertion order; undefined where absent. */
async function findByName(
  client: DspClient,
  keys: readonly NewCampaignKey[],
  signal: AbortSignal | undefined,
): Promise<Array<Campaign | undefined>> {
  const ioIds = [...new Set(keys.map((k) => k.insertion_order_id))];
  const live = await client.listCampaignsByInsertionOrder(ioIds, signal ? { signal } : {});
  return keys.map((key) => {
    const matches = live.filter(
      (c) => c.insertion_order_id === key.insertion_order_id && c.name === key.name,
    );
    if (matches.length > 1) {
      throw new CreationCheckError(
        `insertion order ${key.insertion_order_id} now has ${matches.length} campaigns named "${key.name}" ` +
          `(${matches.map((c) => c.id).join(", ")}); pin the right one with id in the config and plan again`,
      );
    }
    return matches[0];
  });
}

export async function postNewCampaigns(options: {
  client: DspClient;
  request: ApiRequest;
  items: number;
  signal?: AbortSignal | undefined;
  onCheck: (message: string) => void;
  /** Told before the settle wait, with the clock time it ends: progress shows a countdown. */
  onSettle?: (until: number) => void;
  clock: Clock;
  /** How long an unknown outcome is left to settle before the check by name. */
  settleMs: number;
}): Promise<PostOutcome> {
  const { client, request, items, signal, clock, settleMs } = options;
  const keys = keysOf(client.dialect, request.body);
  const sendOptions = signal ? { signal, items } : { items };
  for (let attempt = 1; ; attempt++) {
    try {
      const campaigns = campaignsOf(await client.send(request, sendOptions), items);
      const ids = campaigns.map((c) => c.id);
      return attempt === 1 ? { ids, campaigns } : { ids, campaigns, recovered: "retried" };
    } catch (error) {
      if (!(error instanceof OutcomeUnknownError)) throw error;
      if (error.answered) {
        options.onCheck(
          `outcome of POST /campaigns unknown (${error.message}); the DSP answered, so listing campaigns by name at once to learn what was created`,
        );
      } else {
        options.onCheck(
          `outcome of POST /campaigns unknown (${error.message}); waiting ${Math.round(settleMs / 1000)} s ` +
            "for a slow answer to settle, then listing campaigns by name to learn what was created",
        );
        options.onSettle?.(clock.now() + settleMs);
        await clock.sleep(settleMs, signal);
      }
      const found = await findByName(client, keys, signal);
      const present = found.filter((c) => c !== undefined);
      if (present.length === keys.length) {
        options.onCheck(`all ${keys.length} campaigns were created; continuing`);
        return { ids: present.map((c) => c.id), campaigns: present, recovered: "created" };
      }
      if (present.length > 0) {
        // G3 says creation is transactional, so this should not happen; stop rather than guess.
        throw new CreationCheckError(
          `POST /campaigns created ${present.length} of ${keys.length} campaigns although creation is ` +
            "transactional (G3); nothing more was sent: run plan to see what remains",
          { cause: error },
        );
      }
      if (attempt >= 2) throw error;
      options.onCheck("none was created; sending POST /campaigns once more");
    }
  }
}
