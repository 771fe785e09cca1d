import { describe, expect, it } from "vitest";
import { Money } from "../../src/model/money.js";
import { Placeholder } from "../../src/plan/changes/placeholder.js";
import { pauseSpans } from "../../src/plan/requests/pauses.js";
import {
  desiredCampaign,
  desiredIo,
  desiredState,
  liveCampaign,
  liveCreative,
  liveIo,
  liveState,
  publisher,
  venue,
} from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { bodies, plan } from "../helpers/plans.js";

describe("createPlan: only declared fields", () => {
  it("plans nothing when every declared field already matches, whatever the undeclared ones are", () => {
    const live = liveState({ campaigns: [liveCampaign({ pacing: { strategy: "asap" }, active: false })] });
    const d = desiredState([
      desiredIo("1001", { campaigns: [desiredCampaign("Airports", { fields: { cpm: usd("12.00") } })] }),
    ]);
    const p = plan(d, live);
    expect(p.changes).toEqual([]);
    expect(p.requests).toEqual([]);
    expect(p.findings).toEqual([]);
  });

  it("compares money and times as values, not as text", () => {
    const live = liveState({
      campaigns: [
        liveCampaign({
          cpm: { currency_code: "USD", units: "12", nanos: 500_000_000 },
          end_time: "2027-02-01T00:00:00.000Z",
        }),
      ],
    });
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [
          desiredCampaign("Airports", {
            fields: { cpm: Money.parse("12.5 USD"), end_time: "2027-02-01T00:00:00Z" },
          }),
        ],
      }),
    ]);
    expect(plan(d, live).changes).toEqual([]);
  });

  it("patches only the fields that differ, with the source of each desired value", () => {
    const live = liveState({ campaigns: [liveCampaign()] });
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [
          desiredCampaign("Airports", { fields: { cpm: usd("12.50"), budget_impressions: 100_000 } }),
        ],
      }),
    ]);
    const p = plan(d, live);
    expect(p.changes).toHaveLength(1);
    const change = p.changes[0]!;
    expect(change.kind).toBe("update_campaign");
    if (change.kind !== "update_campaign") return;
    expect(change.fields).toEqual([
      {
        field: "cpm",
        before: usd("12"),
        after: usd("12.50"),
        source: { file: "doohctl.yaml", line: 11, column: 5, path: "campaigns.Airports.cpm" },
      },
    ]);
    expect(bodies(p, 3)).toEqual([{ campaigns: [{ id: "5001", cpm: usd("12.50") }] }]);
    expect(p.requests[0]).toMatchObject({ seq: 1, phase: 3, method: "PATCH", path: "/api/dsp/v1/campaigns" });
    expect(p.requests[0]!.item_change_ids).toEqual([["c1"]]);
  });

  it("shows which inner paths of pacing change, and sends the whole object", () => {
    const live = liveState({ campaigns: [liveCampaign({ pacing: { strategy: "even", cap: 3 } })] });
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [desiredCampaign("Airports", { fields: { pacing: { strategy: "asap", cap: 3 } } })],
      }),
    ]);
    const p = plan(d, live);
    const change = p.changes[0]!;
    if (change.kind !== "update_campaign") throw new Error("expected an update");
    expect(change.fields[0]!.details).toEqual([{ path: "pacing.strategy", before: "even", after: "asap" }]);
    expect(bodies(p, 3)).toEqual([{ campaigns: [{ id: "5001", pacing: { strategy: "asap", cap: 3 } }] }]);
  });
});

describe("createPlan: insertion orders", () => {
  it("widens in phase 1 and narrows in phase 7, splitting one insertion order across both", () => {
    const live = liveState();
    const d = desiredState([
      desiredIo("1001", {
        fields: {
          start_time: "2026-11-15T00:00:00Z",
          end_time: "2027-02-15T00:00:00Z",
          budget_impressions: 2_000_000,
          budget_money: usd("20000"),
          contract_number: "PO-2",
        },
      }),
    ]);
    const p = plan(d, live);
    expect(p.changes.map((c) => c.kind)).toEqual(["update_insertion_order"]);
    expect(p.requests.map((r) => r.phase)).toEqual([1, 7]);
    expect(bodies(p, 1)).toEqual([
      {
        insertion_orders: [
          {
            id: "1001",
            contract_number: "PO-2",
            start_time: "2026-11-15T00:00:00Z",
            budget_impressions: 2_000_000,
          },
        ],
      },
    ]);
    expect(bodies(p, 7)).toEqual([
      { insertion_orders: [{ id: "1001", end_time: "2027-02-15T00:00:00Z", budget_money: usd("20000") }] },
    ]);
    expect(p.requests.every((r) => r.change_ids.join() === "c1")).toBe(true);
  });

  it("lifts budget_money in phase 1 and sets the new currency in phase 7 when campaigns change currency", () => {
    const eur = Money.parse("10 EUR");
    const live = liveState({ campaigns: [liveCampaign()] });
    const d = desiredState([
      desiredIo("1001", {
        fields: { budget_money: Money.parse("20000 EUR") },
        campaigns: [desiredCampaign("Airports", { fields: { cpm: eur } })],
      }),
    ]);
    const p = plan(d, live);
    expect(p.findings).toEqual([]);
    expect(p.requests.map((r) => r.phase)).toEqual([1, 3, 7]);
    expect(bodies(p, 1)).toEqual([{ insertion_orders: [{ id: "1001", budget_money: null }] }]);
  });

  it("refuses an insertion order that does not exist (G1)", () => {
    const p = plan(desiredState([desiredIo("1999", { fields: { contract_number: "X" } })]), liveState());
    expect(p.findings.map((f) => [f.code, f.severity])).toEqual([["DOOH001", "error"]]);
    expect(p.requests).toEqual([]);
  });
});

describe("createPlan: new campaigns", () => {
  const full = {
    start_time: "2026-12-20T00:00:00Z",
    end_time: "2027-01-20T00:00:00Z",
    budget_impressions: 50_000,
    cpm: usd("9"),
  };

  it("creates a campaign inactive and activates it after its targetings and creatives (I2)", () => {
    const live = liveState({ creatives: [liveCreative()] });
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [
          desiredCampaign("Stations", {
            fields: { ...full, active: true },
            targetings: [venue("v1")],
            creatives: ["9001"],
          }),
        ],
      }),
    ]);
    const p = plan(d, live);
    const placeholder = Placeholder.make("c1");
    expect(p.changes.map((c) => [c.id, c.kind])).toEqual([
      ["c1", "create_campaign"],
      ["c2", "replace_targetings"],
      ["c3", "associate_creative"],
    ]);
    expect(p.requests.map((r) => [r.phase, r.method, r.path])).toEqual([
      [2, "POST", "/api/dsp/v1/campaigns"],
      [4, "PUT", `/api/dsp/v1/campaigns/${placeholder}/targetings`],
      [5, "PATCH", "/api/dsp/v1/creatives"],
      [6, "PATCH", "/api/dsp/v1/campaigns"],
    ]);
    expect(bodies(p, 2)).toEqual([
      { campaigns: [{ insertion_order_id: "1001", name: "Stations", ...full, active: false }] },
    ]);
    expect(bodies(p, 5)).toEqual([{ creatives: [{ id: "9001", campaign_ids: [placeholder] }] }]);
    expect(bodies(p, 6)).toEqual([{ campaigns: [{ id: placeholder, active: true }] }]);
    expect(p.requests[3]!.item_change_ids).toEqual([["c1"]]);
  });

  it("asks for the fields creation needs when a campaign without a live match lacks them (G3)", () => {
    const d = desiredState([
      desiredIo("1001", { campaigns: [desiredCampaign("Stations", { fields: { cpm: usd("9") } })] }),
    ]);
    const p = plan(d, liveState());
    expect(p.findings).toHaveLength(1);
    expect(p.findings[0]).toMatchObject({ code: "DOOH006", severity: "error" });
    expect(p.findings[0]!.message).toContain("start_time, end_time, budget_impressions");
    expect(p.requests).toEqual([]);
  });

  it("creates with the budget that fits now and raises it in the phase-3 batch that frees room (I3)", () => {
    const live = liveState({
      insertionOrders: [liveIo({ budget_impressions: 200_000 })],
      campaigns: [liveCampaign({ budget_impressions: 200_000 })],
    });
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [
          desiredCampaign("Airports", { fields: { budget_impressions: 120_000 } }),
          desiredCampaign("Stations", { fields: { ...full, budget_impressions: 80_000 } }),
        ],
      }),
    ]);
    const p = plan(d, live);
    expect(p.findings).toEqual([]);
    expect(p.requests.map((r) => r.phase)).toEqual([2, 3]);
    expect(bodies(p, 2)).toEqual([{ campaigns: [expect.objectContaining({ budget_impressions: 0 })] }]);
    expect(bodies(p, 3)).toEqual([
      {
        campaigns: [
          { id: "5001", budget_impressions: 120_000 },
          { id: Placeholder.make("c2"), budget_impressions: 80_000 },
        ],
      },
    ]);
  });
});

describe("createPlan: targetings and pauses (I1, I5)", () => {
  it("adds an option set to an active campaign without pausing it", () => {
    const live = liveState({ campaigns: [liveCampaign()], targetings: { "5001": [venue("v1")] } });
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [desiredCampaign("Airports", { targetings: [venue("v1"), publisher("p9")] })],
      }),
    ]);
    const p = plan(d, live);
    expect(p.requests.map((r) => r.phase)).toEqual([4]);
    const change = p.changes[0]!;
    expect(change).toMatchObject({ kind: "replace_targetings", pause: false });
    expect(p.findings).toEqual([]);
  });

  it("deactivates an active campaign before removing its venue targeting and reactivates it after", () => {
    const live = liveState({
      campaigns: [liveCampaign()],
      targetings: { "5001": [venue("v1"), publisher("p9")] },
    });
    const d = desiredState([
      desiredIo("1001", { campaigns: [desiredCampaign("Airports", { targetings: [venue("v1", "v2")] })] }),
    ]);
    const p = plan(d, live);
    expect(p.requests.map((r) => [r.phase, r.body])).toEqual([
      [3, { campaigns: [{ id: "5001", active: false }] }],
      [
        4,
        { targetings: [{ venue_targeting_option: { venue_targeting_ids: ["v1", "v2"], exclude: false } }] },
      ],
      [6, { campaigns: [{ id: "5001", active: true }] }],
    ]);
    expect(p.requests.map((r) => r.change_ids)).toEqual([["c1"], ["c1"], ["c1"]]);
    const change = p.changes[0]!;
    if (change.kind !== "replace_targetings") throw new Error("expected targetings");
    expect(change.pause).toBe(true);
    expect(change.removed).toHaveLength(2);
    expect(change.added).toHaveLength(1);
    // `active` left out: only the recovery record would bring it back after a kill (DOOH207).
    expect(p.findings.map((f) => f.code)).toEqual(["DOOH207", "DOOH201"]);
    expect(p.findings[0]!.message).toMatch(/only the recovery record .*declare `active: true` on it/);
    expect(p.findings[1]!.message).toContain(
      "for as long as requests 1 to 3 take (the write window adds no wait)",
    );
  });

  it("says nothing of the record when the paused campaign declares active: true", () => {
    const live = liveState({
      campaigns: [liveCampaign()],
      targetings: { "5001": [venue("v1"), publisher("p9")] },
    });
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [
          desiredCampaign("Airports", { fields: { active: true }, targetings: [venue("v1", "v2")] }),
        ],
      }),
    ]);
    expect(plan(d, live).findings.map((f) => f.code)).toEqual(["DOOH201"]);
  });

  it("does not reactivate a campaign the config switches off while changing its targetings", () => {
    const live = liveState({ campaigns: [liveCampaign()], targetings: { "5001": [venue("v1")] } });
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [desiredCampaign("Airports", { fields: { active: false }, targetings: [venue("v2")] })],
      }),
    ]);
    const p = plan(d, live);
    expect(p.requests.map((r) => r.phase)).toEqual([3, 4]);
    expect(p.findings.map((f) => f.code)).toEqual(["DOOH101"]);
  });

  it("pauses in groups (pause, PUTs, reactivation) at no more writes than phases 3 and 6 would take", () => {
    const campaigns = Array.from({ length: 250 }, (_, i) =>
      liveCampaign({ id: String(5001 + i), name: `C${i}`, budget_impressions: 1000 }),
    );
    const targetings = Object.fromEntries(campaigns.map((c) => [c.id, [venue("v1")]]));
    const d = desiredState([
      desiredIo("1001", {
        campaigns: campaigns.map((c) => desiredCampaign(c.name, { targetings: [venue("v2")] })),
      }),
    ]);
    const p = plan(d, liveState({ campaigns, targetings }));
    // The fewest writes: 3 pause batches, 250 PUTs, 3 reactivation batches, as before grouping.
    expect(p.summary.write_requests).toBe(256);
    const spans = pauseSpans(p);
    expect(spans).toHaveLength(250);
    // Each campaign is dark for its own group (at most 100 PUTs), not for all 250.
    const dark = spans.map((s) => s.resume_seq! - s.pause_seq);
    expect(Math.max(...dark)).toBeLessThanOrEqual(101);
    expect(p.summary.pauses).toMatchObject({ campaigns: 250, extra_writes: 0 });
    expect(p.summary.pauses!.max_dark_ms).toBeGreaterThan(0);
    expect(p.summary.pauses!.max_dark_ms).toBeLessThanOrEqual(Math.max(...dark) * 6_000);
    for (const span of spans) {
      const puts = p.requests.filter(
        (r) => r.method === "PUT" && r.seq > span.pause_seq && r.seq < span.resume_seq!,
      );
      expect(puts.some((r) => r.path.includes(span.campaign_id))).toBe(true);
    }
    expect(p.findings.find((f) => f.code === "DOOH201")?.message).toMatch(/for about \d+m/);
  });

  it("with --max-pause keeps every pause within the bound at the price of extra writes", () => {
    const campaigns = Array.from({ length: 40 }, (_, i) =>
      liveCampaign({ id: String(5001 + i), name: `C${i}`, budget_impressions: 1000 }),
    );
    const targetings = Object.fromEntries(campaigns.map((c) => [c.id, [venue("v1")]]));
    const d = desiredState([
      desiredIo("1001", {
        campaigns: campaigns.map((c) => desiredCampaign(c.name, { targetings: [venue("v2")] })),
      }),
    ]);
    const free = plan(d, liveState({ campaigns, targetings }));
    const bounded = plan(d, liveState({ campaigns, targetings }), { maxPauseMs: 60_000 });
    const interval = 6_000;
    for (const span of pauseSpans(bounded)) {
      expect((span.resume_seq! - span.pause_seq) * interval).toBeLessThanOrEqual(60_000);
    }
    expect(bounded.summary.write_requests).toBeGreaterThan(free.summary.write_requests);
    expect(bounded.summary.pauses?.extra_writes).toBe(
      bounded.summary.write_requests - free.summary.write_requests,
    );
    const impossible = plan(d, liveState({ campaigns, targetings }), { maxPauseMs: 6_000 });
    expect(impossible.findings.map((f) => f.code)).toContain("DOOH204");
    expect(impossible.requests).toEqual([]);
  });
});

describe("createPlan: batching and budget order (I3, I4)", () => {
  it("sends budget decreases in earlier batches than increases when an insertion order is full", () => {
    const campaigns = Array.from({ length: 200 }, (_, i) =>
      liveCampaign({ id: String(5001 + i), name: `C${i}`, budget_impressions: 5000 }),
    );
    const live = liveState({ insertionOrders: [liveIo({ budget_impressions: 1_000_000 })], campaigns });
    // First half gains 1,000 each, second half loses 1,000 each: only safe decreases first.
    const d = desiredState([
      desiredIo("1001", {
        campaigns: campaigns.map((c, i) =>
          desiredCampaign(c.name, { fields: { budget_impressions: i < 100 ? 6000 : 4000 } }),
        ),
      }),
    ]);
    const p = plan(d, live);
    expect(p.findings).toEqual([]);
    const [first, second] = bodies(p, 3) as { campaigns: { budget_impressions: number }[] }[];
    expect(first!.campaigns.every((c) => c.budget_impressions === 4000)).toBe(true);
    expect(second!.campaigns.every((c) => c.budget_impressions === 6000)).toBe(true);
  });

  it("refuses a desired state whose campaign budgets exceed the insertion order's (G8)", () => {
    const live = liveState({
      insertionOrders: [liveIo({ budget_impressions: 150_000 })],
      campaigns: [liveCampaign()],
    });
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [desiredCampaign("Airports", { fields: { budget_impressions: 200_000 } })],
      }),
    ]);
    const p = plan(d, live);
    expect(p.findings.map((f) => f.code)).toEqual(["DOOH701", "DOOH401"]);
    expect(p.findings[0]!.message).toContain(
      "add up to 200,000 impressions, over its budget_impressions 150,000",
    );
    expect(p.requests).toEqual([]);
  });

  it("says at which file:line and which campaigns, listed or not, a budget sum over the insertion order's counts", () => {
    const live = liveState({
      insertionOrders: [liveIo({ budget_impressions: 150_000 })],
      campaigns: [liveCampaign(), liveCampaign({ id: "5009", name: "Legacy", budget_impressions: 40_000 })],
    });
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [desiredCampaign("Airports", { fields: { budget_impressions: 120_000 }, line: 12 })],
      }),
    ]);
    const [budget] = plan(d, live).findings;
    expect(budget).toMatchObject({ code: "DOOH701", source: { file: "doohctl.yaml", line: 3 } });
    expect(budget!.message).toBe(
      "the desired state breaks a rule the DSP enforces on every write (see docs/assumptions.md#g8): " +
        "insertion order 1001: campaign budgets add up to 160,000 impressions, over its budget_impressions 150,000; " +
        'the sum counts "Airports" 120,000 (doohctl.yaml:12), "Legacy" 40,000 (live, not in the config)',
    );
  });

  it("batches 250 campaign updates into 3 requests of at most 100 items", () => {
    const campaigns = Array.from({ length: 250 }, (_, i) =>
      liveCampaign({ id: String(5001 + i), name: `C${i}`, budget_impressions: 1 }),
    );
    const d = desiredState([
      desiredIo("1001", {
        campaigns: campaigns.map((c) => desiredCampaign(c.name, { fields: { cpm: usd("13") } })),
      }),
    ]);
    const p = plan(d, liveState({ campaigns }));
    expect(p.requests.map((r) => r.items)).toEqual([100, 100, 50]);
    expect(p.summary.write_requests).toBe(3);
    // Three writes fit an empty 10/60s window: the window imposes no wait (window-bound).
    expect(p.summary.estimated_apply_ms).toBe(0);
  });
});
