/**
 * Work -> the write requests of the seven phases (ARCHITECTURE.md#apply-order-and-invariants),
 * batched at 100 (I4), decreases before increases (I3), pauses in groups (I5, pause-groups.ts);
 * each request names the changes each of its items carries.
 */
import { type DspEndpoints, Endpoints } from "../../api/endpoints.js";
import type { ApiRequest } from "../../api/types.js";
import { count } from "../../model/plural.js";
import type { CampaignPatch, CreativePatch, InsertionOrderPatch } from "../../model/wire.js";
import { MAX_BATCH } from "../../model/wire.js";
import type { Built } from "../changes/build.js";
import { toJson } from "../changes/compare.js";
import type { CampaignWork } from "../changes/work.js";
import type { Phase, PlannedRequest } from "../types.js";
import { type Choice, chooseLayout, type Item, type Step } from "./pause-groups.js";

type Draft = Omit<PlannedRequest, "seq">;

function chunks<T>(items: readonly T[], fromEnd = false): T[][] {
  const out: T[][] = [];
  // From the end, the last batch is the full one: it holds as many pauses as possible (I5).
  let start = fromEnd ? items.length - Math.ceil(items.length / MAX_BATCH) * MAX_BATCH : 0;
  for (; start < items.length; start += MAX_BATCH) {
    out.push(items.slice(Math.max(0, start), start + MAX_BATCH));
  }
  return out;
}

function draft(phase: Phase, request: ApiRequest, itemChangeIds: string[][], description: string): Draft {
  const changeIds = [...new Set(itemChangeIds.flat())].sort(
    (a, b) => Number(a.slice(1)) - Number(b.slice(1)),
  );
  return {
    phase,
    method: request.method as Draft["method"],
    path: request.path,
    body: toJson(request.body),
    items: itemChangeIds.length,
    change_ids: changeIds,
    item_change_ids: itemChangeIds,
    description,
  };
}

function insertionOrderBatches(phase: 1 | 7, built: Built, endpoints: DspEndpoints): Draft[] {
  const items = built.insertionOrders
    .map((work) => ({ work, patch: phase === 1 ? work.widen : work.narrow }))
    .filter(({ patch }) => Object.keys(patch).length > 0);
  return chunks(items).map((batch) =>
    draft(
      phase,
      endpoints.patchInsertionOrders(
        batch.map(({ work, patch }): InsertionOrderPatch => ({ id: work.id, ...patch })),
      ),
      batch.map(({ work }) => [work.changeId]),
      `PATCH ${count(batch.length, "insertion order")} (${phase === 1 ? "widening" : "narrowing"})`,
    ),
  );
}

/** I3: a new campaign is created with what fits now; the rest is raised after the decreases (placeRaises). */
function fitCreatedBudgets(built: Built): void {
  const room = new Map<string, number>();
  const works = new Map(built.insertionOrders.map((w) => [w.id, w]));
  for (const io of built.index.insertionOrders.values()) {
    const work = works.get(io.id);
    const budget =
      work?.widen.budget_impressions !== undefined ? work.widen.budget_impressions : io.budget_impressions;
    room.set(io.id, budget === null ? Number.POSITIVE_INFINITY : budget);
  }
  for (const campaign of built.index.campaigns.values()) {
    const left = room.get(campaign.insertion_order_id);
    if (left !== undefined) room.set(campaign.insertion_order_id, left - campaign.budget_impressions);
  }
  for (const work of built.campaigns) {
    if (!work.create) continue;
    const left = Math.max(0, room.get(work.insertionOrderId) ?? 0);
    const full = work.create.item.budget_impressions;
    const initial = Math.min(full, left);
    room.set(work.insertionOrderId, left - initial);
    if (initial < full) {
      work.create.item = { ...work.create.item, budget_impressions: initial };
      work.budgetBefore = initial;
      work.raise = { budget: full, phase: 6 };
    }
  }
}

const batchCount = (items: number) => Math.ceil(items / MAX_BATCH);

/**
 * I4: each raise where the phases keep their ceil(items / 100) batches. Phases 3 (after the
 * decreases) and 6 are both safe; an activated campaign is raised in its activation item, an
 * inactive one fills phase 3's room, then phase 6's: min over x of ceil((p3 + x) / 100) +
 * ceil((p6 + r - x) / 100).
 */
function placeRaises(built: Built): void {
  const inactive = built.campaigns.filter((w) => w.raise && !w.activate);
  const phase3 = built.campaigns.filter((w) => Object.keys(w.patch).length > 0 || w.deactivate).length;
  const phase6 = built.campaigns.filter((w) => w.activate).length;
  const r = inactive.length;
  let best = r;
  for (let x = r - 1; x >= 0; x--) {
    if (
      batchCount(phase3 + x) + batchCount(phase6 + r - x) <
      batchCount(phase3 + best) + batchCount(phase6 + r - best)
    ) {
      best = x;
    }
  }
  inactive.forEach((work, i) => {
    if (i >= best || !work.raise || !work.create) return;
    work.raise.phase = 3;
    work.patch.budget_impressions = work.raise.budget;
    work.patchChangeIds.push(work.create.changeId);
  });
}

/** Phase-3 order: decreases before increases (I3), pauses as late as that allows (I5). */
function phase3Rank(work: CampaignWork): number {
  const delta = work.patch.budget_impressions === undefined ? 0 : work.budgetAfter - work.budgetBefore;
  if (!work.pause) return delta < 0 ? 0 : delta === 0 ? 1 : 3;
  return delta < 0 ? 2 : delta === 0 ? 4 : 5;
}

function targetingPut(w: CampaignWork): Draft {
  const request = Endpoints.putTargetings(w.key, w.targetings!.body);
  // Paths carry the placeholder verbatim so the applier can substitute the new id.
  const path = request.path.replace(encodeURIComponent(w.key), w.key);
  return draft(
    4,
    { ...request, path },
    [[w.targetings!.changeId]],
    `PUT targetings of campaign ${w.create ? `"${w.name}" (new)` : w.key}${w.pause ? " (paused)" : ""}`,
  );
}

function creativeBatches(built: Built): Draft[] {
  return chunks(built.creatives).map((batch) =>
    draft(
      5,
      Endpoints.patchCreatives(batch.map((w): CreativePatch => ({ id: w.id, ...w.patch }))),
      batch.map((w) => w.changeIds),
      `PATCH ${count(batch.length, "creative")}`,
    ),
  );
}

/** Phase 6 also raises the budgets placeRaises put there (a raise is never `active: true` alone). */
function raisedLate(w: CampaignWork): boolean {
  return w.raise?.phase === 6;
}

function patchOf(item: Item): CampaignPatch {
  const w = item.work;
  switch (item.kind) {
    case "update":
      return { id: w.key, ...w.patch, ...(w.deactivate ? { active: false } : {}) };
    case "pause":
      return { id: w.key, active: false };
    case "reactivate":
      return { id: w.key, active: true };
    case "activate":
      return {
        id: w.key,
        ...(raisedLate(w) ? { budget_impressions: w.raise!.budget } : {}),
        ...(w.activate ? { active: true } : {}),
      };
  }
}

function changeIdsOf(item: Item): string[] {
  const w = item.work;
  switch (item.kind) {
    case "update":
    case "pause":
      return w.patchChangeIds;
    case "reactivate":
      return w.activateChangeIds;
    case "activate":
      return w.activate ? w.activateChangeIds : [w.create!.changeId];
  }
}

function describeBatch(phase: 3 | 4 | 6, items: readonly Item[]): string {
  const matching = (test: (item: Item) => boolean) => items.filter(test).length;
  const pauses = matching((i) => i.kind === "pause" || (i.kind === "update" && i.work.pause));
  const reactivations = matching((i) => i.kind === "reactivate");
  const deactivations = matching((i) => i.kind === "update" && i.work.deactivate && !i.work.pause);
  const raises = matching((i) => i.kind === "activate" && raisedLate(i.work));
  const activates = items.some((i) => i.kind === "activate" && i.work.activate);
  const notes = [
    phase === 3 && deactivations > 0 ? count(deactivations, "deactivation") : "",
    pauses > 0 ? `${count(pauses, "pause")} for targeting changes` : "",
    reactivations > 0 ? `${count(reactivations, "reactivation")} after targeting changes` : "",
    raises > 0 ? `${count(raises, "budget raise")} after decreases` : "",
  ].filter(Boolean);
  const what = phase === 6 && activates ? ["activate", ...notes] : notes;
  return `PATCH ${count(items.length, "campaign")}${what.length > 0 ? ` (${what.join(phase === 6 ? "; " : ", ")})` : ""}`;
}

function materialize(steps: readonly Step[], creatives: readonly Draft[]): Draft[] {
  let creative = 0;
  return steps.map((step) => {
    if (step.type === "put") return targetingPut(step.work);
    if (step.type === "creatives") return creatives[creative++]!;
    return draft(
      step.phase,
      Endpoints.patchCampaigns(step.items.map(patchOf)),
      step.items.map(changeIdsOf),
      describeBatch(step.phase, step.items),
    );
  });
}

export interface Schedule {
  requests: PlannedRequest[];
  /** How the pauses for targeting changes were grouped, and what a `--max-pause` cost. */
  pauses: Choice;
}

/**
 * `endpoints`: the dialect's (src/api/endpoints.ts), so a plan shows each request as it is sent;
 * `maxDarkRequests`: `--max-pause` in write intervals.
 */
export function scheduleRequests(
  built: Built,
  options: { maxDarkRequests?: number; endpoints: DspEndpoints },
): Schedule {
  const { endpoints } = options;
  fitCreatedBudgets(built);
  placeRaises(built);
  const creates = built.campaigns.filter((w) => w.create);
  const purePause = (w: CampaignWork) => w.pause && Object.keys(w.patch).length === 0;
  const updates = built.campaigns
    .filter((w) => (Object.keys(w.patch).length > 0 || w.deactivate) && !purePause(w))
    .map((work, index) => ({ work, index, rank: phase3Rank(work) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ work }) => work);
  const activationRank = (w: CampaignWork) => (w.create && w.activate ? 1 : w.activate ? 2 : 3);
  const activations = built.campaigns
    .filter((w) => (w.activate || raisedLate(w)) && !w.pause)
    .map((work, index) => ({ work, index }))
    .sort((a, b) => activationRank(a.work) - activationRank(b.work) || a.index - b.index)
    .map(({ work }) => work);
  const creatives = creativeBatches(built);
  const choice = chooseLayout(
    {
      updates,
      pauses: built.campaigns.filter(purePause),
      otherPuts: built.campaigns.filter((w) => w.targetings && !w.pause),
      activations,
      creativeBatches: creatives.length,
    },
    options.maxDarkRequests,
  );
  const drafts: Draft[] = [
    ...insertionOrderBatches(1, built, endpoints),
    ...chunks(creates).map((batch) =>
      draft(
        2,
        endpoints.createCampaigns(batch.map((w) => w.create!.item)),
        batch.map((w) => [w.create!.changeId]),
        `POST ${count(batch.length, "campaign")} (created inactive)`,
      ),
    ),
    ...materialize(choice.layout.steps, creatives),
    ...insertionOrderBatches(7, built, endpoints),
  ];
  return { requests: drafts.map((d, i) => ({ seq: i + 1, ...d })), pauses: choice };
}
