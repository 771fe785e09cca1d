/** Between the changes and the requests: each object's write in each phase. Never in a Plan. */
import type { TargetingOptionSet } from "../../model/targeting.js";
import type {
  Campaign,
  CampaignCreate,
  CampaignPatch,
  CreativePatch,
  InsertionOrderPatch,
} from "../../model/wire.js";
import type { CampaignRef, Change, Finding } from "../types.js";

/** What building changes appends to, shared by build.ts and its helpers. */
export interface Context {
  changes: Change[];
  findings: Finding[];
  nextId(): string;
}

export interface InsertionOrderWork {
  id: string;
  changeId: string;
  /** Phase 1: earlier start, later end, larger or removed budgets, contract number. */
  widen: Omit<InsertionOrderPatch, "id">;
  /** Phase 7: the rest, once the campaigns inside have been narrowed. */
  narrow: Omit<InsertionOrderPatch, "id">;
}

export interface CampaignWork {
  /** Live id, or the placeholder of a campaign this plan creates. */
  key: string;
  insertionOrderId: string;
  name: string;
  liveActive: boolean;
  finalActive: boolean;
  /** Phase 2. */
  create?: { changeId: string; item: CampaignCreate };
  /** Phase 3 fields (never `active: true`, which waits for phase 6). */
  patch: Omit<CampaignPatch, "id">;
  patchChangeIds: string[];
  /** Phase 3 also sends `active: false` (a desired or unmanaged deactivation, or a pause). */
  deactivate: boolean;
  /** I1/G5: paused in phase 3 for a targeting change and reactivated in phase 6. */
  pause: boolean;
  /** Phase 4. */
  targetings?: { changeId: string; body: TargetingOptionSet[] };
  /** I3: a campaign created short of its budget reaches it in phase 3 or 6 (schedule.ts, placeRaises). */
  raise?: { budget: number; phase: 3 | 6 };
  /** Phase 6. */
  activate: boolean;
  activateChangeIds: string[];
  /** Live budget (0 for a new campaign) and the budget it ends with: ordering for I3. */
  budgetBefore: number;
  budgetAfter: number;
}

export interface CreativeWork {
  id: string;
  patch: Omit<CreativePatch, "id">;
  changeIds: string[];
}

export function emptyWork(key: string, insertionOrderId: string, name: string): CampaignWork {
  return {
    key,
    insertionOrderId,
    name,
    liveActive: false,
    finalActive: false,
    patch: {},
    patchChangeIds: [],
    deactivate: false,
    pause: false,
    activate: false,
    activateChangeIds: [],
    budgetBefore: 0,
    budgetAfter: 0,
  };
}

/** A live campaign's work with nothing to do yet: budgets stay as they are. */
export function liveWork(live: Campaign): CampaignWork {
  const work = emptyWork(live.id, live.insertion_order_id, live.name);
  work.budgetBefore = live.budget_impressions;
  work.budgetAfter = live.budget_impressions;
  return work;
}

export function liveRef(live: Campaign): CampaignRef {
  return { insertion_order_id: live.insertion_order_id, name: live.name, campaign_id: live.id };
}
