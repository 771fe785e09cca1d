/**
 * I3 and I4 together: a new campaign whose budget only fits after phase-3 decreases is created
 * with what fits and raised later, and that raise never costs a batch the phases could avoid.
 */
import { describe, expect, it } from "vitest";
import type { Campaign } from "../../src/model/wire.js";
import { Placeholder } from "../../src/plan/changes/placeholder.js";
import type { Plan } from "../../src/plan/types.js";
import {
  desiredCampaign,
  desiredIo,
  desiredState,
  liveCampaign,
  liveIo,
  liveState,
} from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { bodies, plan } from "../helpers/plans.js";

const newFields = {
  start_time: "2026-12-20T00:00:00Z",
  end_time: "2027-01-20T00:00:00Z",
  budget_impressions: 50_000,
  cpm: usd("10"),
};

/** `count` live campaigns of 10,000 impressions filling an insertion order of count x 10,000. */
function fullInsertionOrder(count: number, extra: Campaign[] = []) {
  const campaigns = Array.from({ length: count }, (_, i) =>
    liveCampaign({ id: String(5001 + i), name: `C${i}`, budget_impressions: 10_000 }),
  );
  const all = [...campaigns, ...extra];
  const budget = all.reduce((sum, c) => sum + c.budget_impressions, 0);
  return {
    campaigns,
    live: liveState({ insertionOrders: [liveIo({ budget_impressions: budget })], campaigns: all }),
  };
}

/** Every campaign gives up 1,000 impressions: the room the new campaign needs. */
const decreases = (campaigns: Campaign[]) =>
  campaigns.map((c) => desiredCampaign(c.name, { fields: { budget_impressions: 9_000 } }));

const phaseItems = (p: Plan, phase: number) =>
  p.requests.filter((r) => r.phase === phase).map((r) => r.items);

/** I4 as docs/plan.md states it: per phase, ceil(items / 100) batches, raises counted as items. */
function expectMinimalBatches(p: Plan) {
  for (const phase of [1, 2, 3, 5, 6, 7]) {
    const requests = p.requests.filter((r) => r.phase === phase);
    const items = requests.reduce((sum, r) => sum + r.items, 0);
    expect(requests.length, `phase ${phase}`).toBe(Math.ceil(items / 100));
  }
}

describe("createPlan: raising new campaigns' budgets after decreases (I3, I4)", () => {
  it("raises a new active campaign in its activation item, so 100 decreases still take one phase-3 batch", () => {
    const { campaigns, live } = fullInsertionOrder(100);
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [
          ...decreases(campaigns),
          desiredCampaign("Stations", { fields: { ...newFields, active: true } }),
        ],
      }),
    ]);
    const p = plan(d, live);
    expect(p.findings).toEqual([]);
    expect(phaseItems(p, 2)).toEqual([1]);
    expect(phaseItems(p, 3)).toEqual([100]);
    expect(phaseItems(p, 6)).toEqual([1]);
    // Before: the raise rode phase 3 as a 101st item, a second PATCH for one campaign.
    expect(p.summary.write_requests).toBe(3);
    const created = Placeholder.make(p.changes.find((c) => c.kind === "create_campaign")!.id);
    expect(bodies(p, 2)).toEqual([
      { campaigns: [expect.objectContaining({ budget_impressions: 0, active: false })] },
    ]);
    expect(bodies(p, 6)).toEqual([
      { campaigns: [{ id: created, budget_impressions: 50_000, active: true }] },
    ]);
    expect(p.requests.find((r) => r.phase === 6)!.description).toBe(
      "PATCH 1 campaign (activate; 1 budget raise after decreases)",
    );
    expectMinimalBatches(p);
  });

  it("puts an inactive new campaign's raise into phase 6's room when phase 3 is full", () => {
    const sleeper = liveCampaign({ id: "5900", name: "Sleeper", active: false, budget_impressions: 0 });
    const { campaigns, live } = fullInsertionOrder(100, [sleeper]);
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [
          ...decreases(campaigns),
          desiredCampaign("Sleeper", { fields: { active: true } }),
          desiredCampaign("Stations", { fields: newFields }),
        ],
      }),
    ]);
    const p = plan(d, live);
    expect(p.findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(phaseItems(p, 3)).toEqual([100]);
    expect(phaseItems(p, 6)).toEqual([2]);
    expect(p.summary.write_requests).toBe(3);
    const created = Placeholder.make(p.changes.find((c) => c.kind === "create_campaign")!.id);
    expect(bodies(p, 6)).toEqual([
      {
        campaigns: [
          { id: "5900", active: true },
          { id: created, budget_impressions: 50_000 },
        ],
      },
    ]);
    expect(p.requests.find((r) => r.phase === 6)!.item_change_ids[1]).toEqual([
      p.changes.find((c) => c.kind === "create_campaign")!.id,
    ]);
    expectMinimalBatches(p);
  });

  it("raises in phase 3 after the decreases while its last batch has room", () => {
    const { campaigns, live } = fullInsertionOrder(60);
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [...decreases(campaigns), desiredCampaign("Stations", { fields: newFields })],
      }),
    ]);
    const p = plan(d, live);
    expect(p.findings).toEqual([]);
    expect(phaseItems(p, 3)).toEqual([61]);
    expect(phaseItems(p, 6)).toEqual([]);
    const items = (bodies(p, 3)[0] as { campaigns: { id: string }[] }).campaigns;
    expect(items.at(-1)).toEqual({
      id: expect.stringMatching(/^<new:c/),
      budget_impressions: 50_000,
    });
    expectMinimalBatches(p);
  });

  it("needs one more batch only when phase 3 and phase 6 are both full, as the I4 formula counts it", () => {
    const { campaigns, live } = fullInsertionOrder(100);
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [...decreases(campaigns), desiredCampaign("Stations", { fields: newFields })],
      }),
    ]);
    const p = plan(d, live);
    expect(p.findings).toEqual([]);
    // 1 POST, then 101 items after the decreases: ceil(101 / 100) = 2 batches, the least possible.
    expect(phaseItems(p, 3)).toEqual([100, 1]);
    expect(p.summary.write_requests).toBe(3);
    expectMinimalBatches(p);
  });
});
