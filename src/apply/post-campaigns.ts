/**
 * Creation is the one write that is not idempotent (G3). With its outcome unknown, the apply lists
 * campaigns by name: all created, it takes their ids; none, it sends once more. Never a campaign
 * twice (docs/apply.md, Creating campaigns safely: why a timeout waits `settleMs` first).
 */
import { createdItems } from "../api/endpoints.js";
import { OutcomeUnknownError, unreadableAnswer } from "../api/errors.js";
import type { ApiRequest, BeforeSend, DspClient } from "../api/types.js";
import type { Clock } from "../model/clock.js";
import type { Dialect } from "../model/dialect.js";
import type { Campaign } from "../model/wire.js";
import { ResultUnknownError } from "./answer-check.js";

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
  /** The DSP accepted the POST but its answer could not be read (why): the ids were listed by name. */
  unreadable?: string;
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

/** The answer's campaigns, or undefined when it holds a list of another length than was sent. */
function campaignsOf(response: unknown, expected: number): Campaign[] | undefined {
  const campaigns = (response as { campaigns?: Campaign[] } | null)?.campaigns;
  return Array.isArray(campaigns) && campaigns.length === expected ? campaigns : undefined;
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
  /** The write guard's check, before each attempt (api/types.ts). */
  beforeSend?: BeforeSend;
  signal?: AbortSignal | undefined;
  onCheck: (message: string) => void;
  /** Told before the settle wait, with the clock time it ends: progress shows a countdown. */
  onSettle?: (until: number) => void;
  clock: Clock;
  /** How long an unknown outcome is left to settle before the check by name. */
  settleMs: number;
}): Promise<PostOutcome> {
  const { client, request, items, signal, beforeSend } = options;
  const keys = keysOf(client.dialect, request.body);
  const sendOptions = { items, ...(signal ? { signal } : {}), ...(beforeSend ? { beforeSend } : {}) };
  for (let attempt = 1; ; attempt++) {
    let answer: unknown;
    try {
      answer = await client.send(request, sendOptions);
    } catch (error) {
      const unreadable = unreadableAnswer(error);
      if (unreadable !== undefined) return await acceptedUnread(options, keys, unreadable);
      if (!(error instanceof OutcomeUnknownError)) throw error;
      await lostAnswer(options, error);
      const found = await findByName(client, keys, signal);
      const present = found.filter((c) => c !== undefined);
      if (present.length === keys.length) {
        options.onCheck(`all ${keys.length} campaigns were created; continuing`);
        return { ids: present.map((c) => c.id), campaigns: present, recovered: "created" };
      }
      if (present.length > 0) throw partlyCreated(present.length, keys.length, error);
      if (attempt >= 2) throw error;
      options.onCheck("none was created; sending POST /campaigns once more");
      continue;
    }
    const campaigns = campaignsOf(answer, items);
    if (campaigns === undefined) {
      const answered = (answer as { campaigns?: unknown } | null)?.campaigns;
      const held = Array.isArray(answered) ? answered.length : "no";
      return await acceptedUnread(options, keys, `it holds ${held} campaigns for ${items} sent`);
    }
    const ids = campaigns.map((c) => c.id);
    return attempt === 1 ? { ids, campaigns } : { ids, campaigns, recovered: "retried" };
  }
}

/** A lost answer (G3): said, and for a request that got none, left to settle first. */
async function lostAnswer(
  options: Parameters<typeof postNewCampaigns>[0],
  error: OutcomeUnknownError,
): Promise<void> {
  const { clock, settleMs, signal } = options;
  if (error.answered) {
    options.onCheck(
      `outcome of POST /campaigns unknown (${error.message}); the DSP answered, so listing campaigns by name at once to learn what was created`,
    );
    return;
  }
  options.onCheck(
    `outcome of POST /campaigns unknown (${error.message}); waiting ${Math.round(settleMs / 1000)} s ` +
      "for a slow answer to settle, then listing campaigns by name to learn what was created",
  );
  options.onSettle?.(clock.now() + settleMs);
  await clock.sleep(settleMs, signal);
}

/** An accepted POST whose answer cannot be read: the ids are learnt by name, never by sending it again. */
async function acceptedUnread(
  options: Parameters<typeof postNewCampaigns>[0],
  keys: readonly NewCampaignKey[],
  unreadable: string,
): Promise<PostOutcome> {
  options.onCheck(
    `POST /campaigns was accepted but its answer cannot be read (${unreadable}); listing campaigns by name to learn their ids`,
  );
  let found: Array<Campaign | undefined>;
  try {
    found = await findByName(options.client, keys, options.signal);
  } catch (error) {
    // Accepted all the same: never reported as not applied, whatever the listing met.
    if (options.signal?.aborted) throw error;
    throw new ResultUnknownError(
      `POST /campaigns was accepted but its answer cannot be read (${unreadable}), and listing the campaigns by name did not tell which they are: ${(error as Error).message}. It is applied, with its result unknown: run doohctl plan to see what exists now`,
      { cause: error },
    );
  }
  const present = found.filter((c) => c !== undefined);
  if (present.length === keys.length) {
    const ids = present.map((c) => c.id);
    options.onCheck(`all ${keys.length} campaigns were created (ids ${ids.join(", ")}); continuing`);
    return { ids, campaigns: present, recovered: "created", unreadable };
  }
  throw new ResultUnknownError(
    `POST /campaigns was accepted but its answer cannot be read (${unreadable}), and ${present.length} of its ${keys.length} campaigns exist by name in their insertion orders; nothing more was sent (a second POST could create them twice): run doohctl plan to see what exists now`,
  );
}

/** G3 says creation is transactional, so this should not happen; stop rather than guess. */
function partlyCreated(present: number, sent: number, cause: unknown): CreationCheckError {
  return new CreationCheckError(
    `POST /campaigns created ${present} of ${sent} campaigns although creation is ` +
      "transactional (G3); nothing more was sent: run plan to see what remains",
    { cause },
  );
}
