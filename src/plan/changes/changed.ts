/**
 * `--changed-since REF`: which declared objects differ between the config at REF and the working
 * tree, by what they declare, never where: moving a block changes nothing.
 */
import type { DesiredCampaign, DesiredInsertionOrder, DesiredState, SourceRef } from "../../model/desired.js";
import { loosenings } from "../../model/policy-strictness.js";
import { canonicalJson } from "../saved/canonical.js";
import type { ChangedScope } from "../types.js";

/** A campaign's identity within the config: its insertion order and name (ARCHITECTURE.md#identity). */
export function campaignKey(insertionOrderId: string, name: string): string {
  return `${insertionOrderId}\u0000${name}`;
}

function campaignContent(c: DesiredCampaign): string {
  return canonicalJson({
    id: c.id ?? null,
    fields: c.fields,
    targetings: c.targetings,
    creatives: c.creatives,
  });
}

function insertionOrderContent(io: DesiredInsertionOrder): string {
  return canonicalJson({ fields: io.fields, unmanaged: io.unmanagedCampaigns });
}

export function changedSince(
  base: DesiredState,
  head: DesiredState,
  ref: { since: string; commit: string },
): ChangedScope {
  const baseIos = new Map(base.insertionOrders.map((io) => [io.id, io]));
  const insertionOrders: string[] = [];
  const campaigns: ChangedScope["campaigns"] = [];
  const removed: ChangedScope["removed_campaigns"] = [];
  for (const io of head.insertionOrders) {
    const was = baseIos.get(io.id);
    if (!was || insertionOrderContent(was) !== insertionOrderContent(io)) insertionOrders.push(io.id);
    const before = new Map((was?.campaigns ?? []).map((c) => [c.name, c]));
    const names = new Set(io.campaigns.map((c) => c.name));
    for (const c of io.campaigns) {
      const old = before.get(c.name);
      if (!old || campaignContent(old) !== campaignContent(c)) {
        campaigns.push({ insertion_order_id: io.id, name: c.name, added: !old });
      }
    }
    // Removed from an insertion order the head still manages; one no longer declared at all
    // is no longer managed, so there is nothing to plan for its campaigns.
    for (const c of was?.campaigns ?? []) {
      if (names.has(c.name)) continue;
      removed.push({ insertion_order_id: io.id, name: c.name, ...(c.id !== undefined ? { id: c.id } : {}) });
    }
  }
  const baseCreatives = new Map(base.creatives.map((c) => [c.id, canonicalJson(c.fields)]));
  const creatives = head.creatives
    .filter((c) => baseCreatives.get(c.id) !== canonicalJson(c.fields))
    .map((c) => c.id);

  const declared =
    head.insertionOrders.length +
    head.insertionOrders.reduce((n, io) => n + io.campaigns.length, 0) +
    head.creatives.length;
  const loosened = loosenedPolicy(base, head);
  return {
    since: ref.since,
    commit: ref.commit,
    insertion_orders: insertionOrders,
    campaigns,
    removed_campaigns: removed,
    creatives,
    not_refreshed: declared - insertionOrders.length - campaigns.length - creatives.length,
    ...(loosened.length > 0 ? { loosened_policy: loosened } : {}),
  };
}

/** Each guardrail rule the head loosens (policy-strictness.ts): top-level once, then each order's own. */
export function loosenedPolicy(base: DesiredState, head: DesiredState): string[] {
  const at = (source: SourceRef | undefined) => (source ? ` (${source.file}:${source.line})` : "");
  const top = loosenings(base.policy, head.policy).map((l) => `policy.${l.what}${at(l.source)}`);
  const baseIos = new Map(base.insertionOrders.map((io) => [io.id, io]));
  const own = head.insertionOrders.flatMap((io) => {
    const was = baseIos.get(io.id);
    const named = new Set([...Object.keys(was?.policy ?? {}), ...Object.keys(io.policy ?? {})]);
    return loosenings({ ...base.policy, ...was?.policy }, { ...head.policy, ...io.policy })
      .filter((l) => named.has(l.rule))
      .map((l) => `insertion order ${io.id} policy.${l.what}${at(l.source)}`);
  });
  return [...top, ...own];
}

/** Insertion orders whose live campaigns a scoped plan reads: G8's budget sum needs all of them. */
export function touchedInsertionOrders(scope: ChangedScope): Set<string> {
  return new Set([
    ...scope.insertion_orders,
    ...scope.campaigns.map((c) => c.insertion_order_id),
    ...scope.removed_campaigns.map((c) => c.insertion_order_id),
  ]);
}
