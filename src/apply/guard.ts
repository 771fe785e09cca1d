/**
 * No lost update, no duplicate (docs/apply.md, Edits by others during an apply): right before
 * each write (BeforeSend, api/types.ts: after every wait, before each retry), what it writes is
 * read again and compared with what the plan saw.
 */
import { createdItems } from "../api/endpoints.js";
import type { DspClient, SendOptions } from "../api/types.js";
import { CAMPAIGN_FIELDS, CREATIVE_FIELDS, INSERTION_ORDER_FIELDS } from "../model/resource-fields.js";
import { Targeting, type TargetingOptionSet } from "../model/targeting.js";
import type { Campaign, Creative, InsertionOrder } from "../model/wire.js";
import { fingerprintOf, snapshotOf, targetingsSnapshot } from "../plan/saved/fingerprint.js";
import { describeStale } from "../plan/saved/stale.js";
import type { JsonValue, ObjectKind, Plan } from "../plan/types.js";
import { batchOf, shownAsSent, TARGETINGS_PATH } from "./answer-check.js";

export class ConcurrentChangeError extends Error {
  override readonly name = "ConcurrentChangeError";
  readonly code = "APPLY_CONCURRENT_CHANGE";
}

type Snapshot = Record<string, JsonValue>;

function idsOf(body: unknown, member: string): string[] {
  const items = (body as Record<string, unknown> | null)?.[member];
  if (!Array.isArray(items)) return [];
  return items.flatMap((item: { id?: unknown }) => (typeof item?.id === "string" ? [item.id] : []));
}

export class WriteGuard {
  /** `kind:id` -> the object as this apply expects to find it. */
  private readonly expected = new Map<string, JsonValue>();

  constructor(
    plan: Plan,
    private readonly client: DspClient,
  ) {
    for (const fp of plan.fingerprints) {
      // An insertion order's own fields: the campaign set is not what its PATCH writes.
      if (fp.kind === "insertion_order") {
        const { campaigns: _, ...fields } = (fp.snapshot ?? {}) as Snapshot;
        this.expected.set(`insertion_order:${fp.id}`, fields);
      } else {
        this.expected.set(`${fp.kind}:${fp.id}`, fp.snapshot);
      }
    }
  }

  /**
   * Throws ConcurrentChangeError when an object `request` writes moved since the plan. After an
   * attempt that may have landed, an object shown as this request writes it counts as its own.
   */
  async check(
    request: { method: string; path: string; body: unknown },
    options: SendOptions,
    mayHaveLanded = false,
  ): Promise<void> {
    const { method, path, body } = request;
    if (method === "POST" && path.endsWith("/campaigns")) return this.checkNames(body, options);
    const targetings = TARGETINGS_PATH.exec(path);
    if (method === "PUT" && targetings) {
      const id = decodeURIComponent(targetings[1]!);
      // The campaign's `active` in the same look (GET /campaigns filtered by id, G2): a PUT
      // that drops or changes a set goes only to an inactive campaign (I1).
      const { campaign, sets } = await this.liveTargetings(id, options);
      const sent = ((body as { targetings?: unknown } | null)?.targetings ?? []) as TargetingOptionSet[];
      const written = mayHaveLanded && sets !== undefined && Targeting.listEquals(sent, sets);
      if (!written)
        this.compare("targetings", [[id, sets === undefined ? undefined : targetingsSnapshot(sets)]]);
      return refuseActiveRemoval(id, campaign, sets, sent);
    }
    if (method !== "PATCH") return;
    const batch = batchOf(path);
    if (!batch) return;
    const ids = idsOf(body, batch.member);
    const live: { id: string }[] = await batch.read(this.client, ids, options);
    const written = mayHaveLanded ? shownAsSent(request, live, this.client.dialect) : new Map();
    const byId = new Map(live.map((o) => [o.id, o]));
    return this.compare(
      batch.kind,
      ids.map((id) => {
        const object = byId.get(id);
        if (object === undefined) return [id, undefined];
        const now = snapshotOf(batch.fields, object);
        const expected = (this.expected.get(`${batch.kind}:${id}`) ?? {}) as Snapshot;
        for (const member of written.get(id) ?? []) if (member in expected) now[member] = expected[member]!;
        return [id, now];
      }),
    );
  }

  /** Takes in what the DSP answered to a write of this apply: the new expected state. */
  record(request: { method: string; path: string }, response: unknown): void {
    const answer = (response ?? {}) as Record<string, unknown>;
    const list = <T>(member: string): T[] => (Array.isArray(answer[member]) ? (answer[member] as T[]) : []);
    const targetings = TARGETINGS_PATH.exec(request.path);
    if (request.method === "PUT" && targetings && Array.isArray(answer.targetings)) {
      const id = decodeURIComponent(targetings[1]!);
      this.expected.set(`targetings:${id}`, targetingsSnapshot(answer.targetings as never));
      return;
    }
    for (const c of list<Campaign>("campaigns")) {
      this.expected.set(`campaign:${c.id}`, snapshotOf(CAMPAIGN_FIELDS, c));
      // G5: a campaign that was never given targetings answers an empty list.
      if (request.method === "POST" && !this.expected.has(`targetings:${c.id}`)) {
        this.expected.set(`targetings:${c.id}`, []);
      }
    }
    for (const io of list<InsertionOrder>("insertion_orders")) {
      this.expected.set(`insertion_order:${io.id}`, snapshotOf(INSERTION_ORDER_FIELDS, io));
    }
    for (const c of list<Creative>("creatives")) {
      this.expected.set(`creative:${c.id}`, snapshotOf(CREATIVE_FIELDS, c));
    }
  }

  private compare(kind: ObjectKind, objects: [string, JsonValue | undefined][]): void {
    const moved: string[] = [];
    for (const [id, now] of objects) {
      const expected = this.expected.get(`${kind}:${id}`);
      if (expected === undefined) {
        moved.push(`${kind.replace("_", " ")} ${id} has no fingerprint in the plan, so it cannot be checked`);
        continue;
      }
      const stale = describeStale(fingerprintOf(kind, id, expected), now);
      if (stale) moved.push(stale.message.replace(/ since the plan was made$/, ""));
    }
    if (moved.length > 0) {
      throw new ConcurrentChangeError(
        `changed since the plan was made, so this request was not sent (it would overwrite the change): ${moved.join("; ")}. Run doohctl plan again`,
      );
    }
  }

  /** A campaign and its targetings as the DSP holds them now: one read where its answer embeds them (G5). */
  private async liveTargetings(
    id: string,
    options: SendOptions,
  ): Promise<{ campaign: Campaign | undefined; sets: TargetingOptionSet[] | undefined }> {
    if (this.client.dialect.campaign_targetings !== null) {
      const [campaign] = await this.client.getCampaigns([id], options);
      return { campaign, sets: campaign?.targetings };
    }
    const [live, [campaign]] = await Promise.all([
      this.client.getTargetings([id], options),
      this.client.getCampaigns([id], options),
    ]);
    return { campaign, sets: live.get(id) };
  }

  /** Right before a POST /campaigns: none of its campaigns may exist by now (no duplicate). */
  private async checkNames(body: unknown, options: SendOptions): Promise<void> {
    const items = (createdItems(this.client.dialect, body) ?? []) as {
      insertion_order_id?: unknown;
      name?: unknown;
    }[];
    const ioIds = [...new Set(items.map((i) => String(i.insertion_order_id)))];
    if (ioIds.length === 0) return;
    const live = await this.client.listCampaignsByInsertionOrder(ioIds, options);
    const existing = new Map(live.map((c) => [`${c.insertion_order_id}\n${c.name}`, c.id]));
    const taken = items.flatMap((i) => {
      const id = existing.get(`${String(i.insertion_order_id)}\n${String(i.name)}`);
      return id === undefined
        ? []
        : [
            `campaign "${String(i.name)}" of insertion order ${String(i.insertion_order_id)} exists (id ${id})`,
          ];
    });
    if (taken.length > 0) {
      throw new ConcurrentChangeError(
        `created by someone else since the plan was made, so POST /campaigns was not sent (it would create them twice): ${taken.join("; ")}. Run doohctl plan again`,
      );
    }
  }
}

/**
 * G5, I1: the PUT would drop or change a set of a campaign active now (another apply reactivated
 * it). Pausing it here would pause what no plan showed, so the apply stops before broadening
 * delivery; a new plan pauses it around the change (docs/safety.md).
 */
function refuseActiveRemoval(
  id: string,
  campaign: Campaign | undefined,
  live: readonly TargetingOptionSet[] | undefined,
  after: readonly TargetingOptionSet[],
): void {
  if (!campaign?.active || live === undefined) return;
  const { removed } = Targeting.keyedDifference(Targeting.keyed(live), Targeting.keyed(after));
  if (removed.length === 0) return;
  throw new ConcurrentChangeError(
    `campaign ${id} "${campaign.name}" is active now, and replacing its targetings would remove or change ${removed.length === 1 ? "an option set" : `${removed.length} option sets`}, which the DSP refuses for an active campaign and which would broaden its delivery (G5): this request was not sent. Another apply or a person reactivated it since this plan; run doohctl plan again: it pauses the campaign around the change`,
  );
}
