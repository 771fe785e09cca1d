/**
 * I5: of the orders with the fewest writes, the fewest campaign-seconds paused. A campaign losing
 * an option set is paused for its PUT (I1, G5); paused in phase 3 and reactivated in 6, each is
 * dark through all of phase 4 (1,000 PUTs: about 100 minutes at 10/60s), so they go in groups.
 * Candidates are scored (writes, then total and longest dark time) and `--max-pause` drops those
 * over it; the old layout (pauses in 3, reactivations in 6) is one, so none costs more writes.
 */
import { MAX_BATCH } from "../../model/wire.js";
import type { CampaignWork } from "../changes/work.js";

/** A PATCH /campaigns item a layout places: a phase-3 update, a pause or a reactivation. */
export type Item =
  | { kind: "update"; work: CampaignWork }
  | { kind: "pause"; work: CampaignWork }
  | { kind: "reactivate"; work: CampaignWork }
  | { kind: "activate"; work: CampaignWork };

export type Step =
  | { type: "batch"; phase: 3 | 4 | 6; items: Item[] }
  | { type: "put"; work: CampaignWork }
  | { type: "creatives" };

export interface LayoutInput {
  /** Phase-3 items in I3 order; paused campaigns with other field changes are among them. */
  updates: CampaignWork[];
  /** Paused campaigns with no other phase-3 field: free to group. */
  pauses: CampaignWork[];
  /** Targeting PUTs of campaigns that are not paused. */
  otherPuts: CampaignWork[];
  /** Phase-6 items other than reactivations, in their order. */
  activations: CampaignWork[];
  /** Creative batches (phase 5): only their count matters here. */
  creativeBatches: number;
}

export interface Layout {
  steps: Step[];
  writes: number;
  /** Per paused campaign, requests from its pause to its reactivation. */
  darkRequests: number[];
  totalDark: number;
  maxDark: number;
}

interface Params {
  /** Pauses per group. */
  size: number;
  /** Reactivate a group in the same batch that pauses the next one. */
  merge: boolean;
  /** The last group's reactivations ride the first phase-6 batch. */
  lastInPhase6: boolean;
  /** The first group fills the room of phase 3's last batch. */
  fillPhase3: boolean;
  /** The old layout: every pause in phase 3, every reactivation in phase 6. */
  allInPhase3: boolean;
}

function chunk<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += MAX_BATCH) out.push(items.slice(i, i + MAX_BATCH));
  return out;
}

function build(input: LayoutInput, p: Params): Step[] {
  const steps: Step[] = [];
  const forced = input.updates.filter((w) => w.pause);
  const queue = [...input.pauses];
  const room = (MAX_BATCH - (input.updates.length % MAX_BATCH)) % MAX_BATCH;
  const fill = p.allInPhase3 ? queue.length : p.fillPhase3 ? Math.min(room, queue.length) : 0;
  const first = queue.splice(0, fill);
  const phase3: Item[] = [
    ...input.updates.map((work): Item => ({ kind: "update", work })),
    ...first.map((work): Item => ({ kind: "pause", work })),
  ];
  for (const items of chunk(phase3)) steps.push({ type: "batch", phase: 3, items });
  let pending = [...forced, ...first];
  let othersPlaced = false;
  const placeOthers = () => {
    for (const work of input.otherPuts) steps.push({ type: "put", work });
    othersPlaced = true;
  };
  if (pending.length === 0) placeOthers();
  const reactivations = (works: CampaignWork[]) => works.map((work): Item => ({ kind: "reactivate", work }));
  const pausesOf = (works: CampaignWork[]) => works.map((work): Item => ({ kind: "pause", work }));
  for (;;) {
    if (pending.length === 0) {
      if (queue.length === 0) break;
      pending = queue.splice(0, p.size);
      steps.push({ type: "batch", phase: 4, items: pausesOf(pending) });
    }
    for (const work of pending) steps.push({ type: "put", work });
    if (p.allInPhase3 && queue.length === 0) break;
    if (queue.length === 0 && p.lastInPhase6) break;
    const roomForNext = MAX_BATCH - pending.length;
    if (p.merge && queue.length > 0 && pending.length < MAX_BATCH && roomForNext > 0) {
      const next = queue.splice(0, Math.min(p.size, roomForNext));
      steps.push({ type: "batch", phase: 4, items: [...reactivations(pending), ...pausesOf(next)] });
      pending = next;
      continue;
    }
    for (const works of chunk(pending)) steps.push({ type: "batch", phase: 4, items: reactivations(works) });
    pending = [];
    if (!othersPlaced) placeOthers();
  }
  if (!othersPlaced) placeOthers();
  for (let i = 0; i < input.creativeBatches; i++) steps.push({ type: "creatives" });
  const phase6: Item[] = [
    ...reactivations(pending),
    ...input.activations.map((work): Item => ({ kind: "activate", work })),
  ];
  for (const items of chunk(phase6)) steps.push({ type: "batch", phase: 6, items });
  return steps;
}

function score(steps: Step[]): Layout {
  const pausedAt = new Map<CampaignWork, number>();
  const darkRequests: number[] = [];
  steps.forEach((step, index) => {
    if (step.type !== "batch") return;
    for (const item of step.items) {
      if (item.kind === "pause" || (item.kind === "update" && item.work.pause))
        pausedAt.set(item.work, index);
      if (item.kind === "reactivate") darkRequests.push(index - (pausedAt.get(item.work) ?? index));
    }
  });
  return {
    steps,
    writes: steps.length,
    darkRequests,
    totalDark: darkRequests.reduce((a, b) => a + b, 0),
    maxDark: darkRequests.reduce((a, b) => Math.max(a, b), 0),
  };
}

function better(a: Layout, b: Layout): boolean {
  return (
    a.writes < b.writes ||
    (a.writes === b.writes &&
      (a.totalDark < b.totalDark || (a.totalDark === b.totalDark && a.maxDark < b.maxDark)))
  );
}

export interface Choice {
  layout: Layout;
  /** Writes of the fewest-writes layout: what `--max-pause` costs is `layout.writes - minimumWrites`. */
  minimumWrites: number;
  /** False when no layout keeps every pause within `maxDarkRequests`. */
  boundMet: boolean;
}

/**
 * The best layout; with `maxDarkRequests`, the fewest writes among those that keep every
 * pause within it (else the one with the shortest longest pause, and `boundMet` false).
 */
export function chooseLayout(input: LayoutInput, maxDarkRequests?: number): Choice {
  const paused = input.pauses.length + input.updates.filter((w) => w.pause).length;
  const old = score(
    build(input, { size: MAX_BATCH, merge: false, lastInPhase6: true, fillPhase3: true, allInPhase3: true }),
  );
  if (paused === 0) return { layout: old, minimumWrites: old.writes, boundMet: true };
  let best: Layout | undefined;
  let fewest = old;
  let shortest = old;
  // Group sizes worth trying: every small one, then coarser steps (the score is flat between).
  const sizes = new Set<number>();
  for (const size of [
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 20, 25, 30, 34, 40, 50, 60, 70, 80, 90, 100,
  ]) {
    sizes.add(Math.min(size, Math.max(1, input.pauses.length)));
  }
  for (const size of sizes) {
    for (const merge of [false, true]) {
      for (const lastInPhase6 of [false, true]) {
        for (const fillPhase3 of [false, true]) {
          const layout = score(build(input, { size, merge, lastInPhase6, fillPhase3, allInPhase3: false }));
          if (better(layout, fewest)) fewest = layout;
          if (layout.maxDark < shortest.maxDark) shortest = layout;
          if (maxDarkRequests !== undefined && layout.maxDark > maxDarkRequests) continue;
          if (maxDarkRequests === undefined && layout.writes > old.writes) continue;
          if (!best || better(layout, best)) best = layout;
        }
      }
    }
  }
  if (maxDarkRequests === undefined) {
    const chosen = best && better(best, old) ? best : old;
    return { layout: chosen, minimumWrites: chosen.writes, boundMet: true };
  }
  const minimumWrites = Math.min(fewest.writes, old.writes);
  if (old.maxDark <= maxDarkRequests && (!best || better(old, best))) best = old;
  return best
    ? { layout: best, minimumWrites, boundMet: true }
    : { layout: shortest, minimumWrites, boundMet: false };
}
