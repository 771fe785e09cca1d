import { describe, expect, it } from "vitest";
import {
  desiredCampaign,
  desiredCreative,
  desiredIo,
  desiredState,
  liveCampaign,
  liveCreative,
  liveState,
  source,
} from "../helpers/builders.js";
import { plan } from "../helpers/plans.js";

function creativeWithSources(id: string, categoryIds: string[]) {
  return {
    ...desiredCreative(id, { category_ids: categoryIds }),
    fieldSources: { category_ids: source(51, `creatives.${id}.category_ids`) },
  };
}

describe("createPlan: creatives (G6)", () => {
  it("sends each creative's full campaign_ids, keeping associations with campaigns the config does not manage", () => {
    const live = liveState({
      campaigns: [liveCampaign(), liveCampaign({ id: "5002", name: "Malls" })],
      creatives: [
        liveCreative({ id: "9001", campaign_ids: ["5001", "7777"] }),
        liveCreative({ id: "9002", campaign_ids: ["7777"] }),
      ],
    });
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [desiredCampaign("Airports", { creatives: ["9002"] }), desiredCampaign("Malls")],
      }),
    ]);
    const p = plan(d, live);
    expect(p.changes.map((c) => c.kind)).toEqual(["associate_creative", "dissociate_creative"]);
    expect(p.requests.map((r) => r.body)).toEqual([
      {
        creatives: [
          { id: "9001", campaign_ids: ["7777"] },
          { id: "9002", campaign_ids: ["5001", "7777"] },
        ],
      },
    ]);
    expect(p.requests[0]!.item_change_ids).toEqual([["c2"], ["c1"]]);
  });

  it("merges association and property changes of one creative into one batch item", () => {
    const live = liveState({
      campaigns: [liveCampaign()],
      creatives: [liveCreative({ category_ids: ["3"] })],
    });
    const d = desiredState(
      [desiredIo("1001", { campaigns: [desiredCampaign("Airports", { creatives: ["9001"] })] })],
      [desiredCreative("9001", { category_ids: ["4", "3"] })],
    );
    const p = plan(d, live);
    expect(p.requests.map((r) => r.body)).toEqual([
      { creatives: [{ id: "9001", campaign_ids: ["5001"], category_ids: ["3", "4"] }] },
    ]);
    expect(p.requests[0]!.change_ids).toEqual(["c1", "c2"]);
  });

  it("refuses to associate a creative of another advertiser, naming both (G6 rule 2)", () => {
    const live = liveState({
      campaigns: [liveCampaign()],
      creatives: [liveCreative({ advertiser_id: "2" })],
      advertisers: [
        { id: "1", name: "Northwind" },
        { id: "2", name: "Contoso" },
      ],
    });
    const p = plan(
      desiredState([
        desiredIo("1001", { campaigns: [desiredCampaign("Airports", { creatives: ["9001"] })] }),
      ]),
      live,
    );
    expect(p.findings.map((f) => f.code)).toEqual(["DOOH601"]);
    expect(p.findings[0]!.message).toContain(
      "advertiser 2 (Contoso) but insertion order 1001 to advertiser 1 (Northwind)",
    );
    expect(p.requests).toEqual([]);
  });

  it("refuses archived and unknown creatives, and warns about one not yet PROCESSED on an active campaign", () => {
    const live = liveState({
      campaigns: [liveCampaign(), liveCampaign({ id: "5002", name: "Malls" })],
      creatives: [
        liveCreative({ id: "9001", archived: true }),
        liveCreative({ id: "9002", processing_status: "PROCESSING" }),
        liveCreative({
          id: "9003",
          audits: [{ network_id: "7", status: "DENIED", message: "", last_reviewed: "2026-10-01T00:00:00Z" }],
        }),
      ],
    });
    const errors = plan(
      desiredState([
        desiredIo("1001", { campaigns: [desiredCampaign("Airports", { creatives: ["9001", "9404"] })] }),
      ]),
      live,
    );
    expect(errors.findings.map((f) => f.code)).toEqual(["DOOH008", "DOOH007"]);
    const warnings = plan(
      desiredState([
        desiredIo("1001", { campaigns: [desiredCampaign("Malls", { creatives: ["9002", "9003"] })] }),
      ]),
      live,
    );
    expect(warnings.findings.map((f) => f.code)).toEqual(["DOOH501", "DOOH501"]);
    expect(warnings.findings[1]!.message).toContain("DENIED by every network that reviewed it (network 7)");
    expect(warnings.requests).toHaveLength(1);
  });

  it("refuses a category_ids entry that names no creative category, naming the creative, the category and the config place (G6 rule 5)", () => {
    const live = liveState({
      creatives: [liveCreative({ category_ids: ["3"] })],
      creativeCategories: [{ id: "4", name: "Sports" }],
    });
    const d = desiredState([desiredIo("1001")], [creativeWithSources("9001", ["3", "4", "77"])]);
    const p = plan(d, live);
    expect(p.findings).toEqual([
      {
        code: "DOOH010",
        severity: "error",
        message:
          "creative 9001: category 77 in category_ids does not exist (see docs/assumptions.md#g6): use the id of an existing creative category (GET /creative_categories)",
        address: "creative.9001",
        source: source(51, "creatives.9001.category_ids"),
      },
    ]);
    expect(p.requests).toEqual([]);
  });

  it("accepts categories the creative already has or that exist, and checks none when none were read", () => {
    const live = liveState({
      creatives: [liveCreative({ category_ids: ["3"] })],
      creativeCategories: [{ id: "4", name: "Sports" }],
    });
    const d = desiredState([desiredIo("1001")], [creativeWithSources("9001", ["3", "4"])]);
    expect(plan(d, live).findings).toEqual([]);
    const { creativeCategories: _, ...unread } = live;
    const p = plan(desiredState([desiredIo("1001")], [creativeWithSources("9001", ["77"])]), unread);
    expect(p.findings).toEqual([]);
    expect(p.requests).toHaveLength(1);
  });
});
