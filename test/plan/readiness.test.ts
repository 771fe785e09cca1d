/** DOOH501: a creative that will not serve on a campaign the plan leaves active. */
import { describe, expect, it } from "vitest";
import type { Creative } from "../../src/model/wire.js";
import {
  desiredCampaign,
  desiredIo,
  desiredState,
  liveCampaign,
  liveCreative,
  liveState,
} from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { plan } from "../helpers/plans.js";

const processing = (overrides: Partial<Creative> = {}) =>
  liveCreative({ id: "9002", processing_status: "PROCESSING", campaign_ids: ["5001"], ...overrides });

const denied = liveCreative({
  id: "9003",
  campaign_ids: ["5001"],
  audits: [{ network_id: "7", status: "DENIED", message: "", last_reviewed: "2026-10-01T00:00:00Z" }],
});

describe("DOOH501: creatives not ready on campaigns the plan activates", () => {
  it("warns about each creative already associated with a campaign the plan activates, saying why", () => {
    const live = liveState({
      campaigns: [liveCampaign({ active: false })],
      creatives: [processing(), denied, liveCreative({ id: "9004", campaign_ids: ["5001"], archived: true })],
    });
    const p = plan(
      desiredState([
        desiredIo("1001", { campaigns: [desiredCampaign("Airports", { fields: { active: true } })] }),
      ]),
      live,
    );
    expect(p.findings.map((f) => f.message)).toEqual([
      'creative 9002 cannot serve yet: it is PROCESSING, not PROCESSED, and is associated with campaign 5001 "Airports" of insertion order 1001, which this plan activates: it will not serve there',
      'creative 9003 cannot serve: it was DENIED by every network that reviewed it (network 7), and is associated with campaign 5001 "Airports" of insertion order 1001, which this plan activates: it will not serve there',
      'creative 9004 cannot serve: it is archived, and is associated with campaign 5001 "Airports" of insertion order 1001, which this plan activates: it will not serve there',
    ]);
    expect(p.findings[0]).toMatchObject({
      code: "DOOH501",
      severity: "warning",
      address: "campaign.1001/Airports",
      change_ids: ["c1"],
      source: { path: "campaigns.Airports.active" },
    });
  });

  it("stays quiet about a creative the plan removes from the campaign it activates", () => {
    const live = liveState({ campaigns: [liveCampaign({ active: false })], creatives: [processing()] });
    const p = plan(
      desiredState([
        desiredIo("1001", {
          campaigns: [desiredCampaign("Airports", { fields: { active: true }, creatives: [] })],
        }),
      ]),
      live,
    );
    expect(p.changes.map((c) => c.kind)).toEqual(["update_campaign", "dissociate_creative"]);
    expect(p.findings).toEqual([]);
  });

  it("stays quiet about campaigns already active or left inactive", () => {
    const creatives = [processing({ campaign_ids: ["5001", "5002"] })];
    const live = liveState({
      campaigns: [liveCampaign(), liveCampaign({ id: "5002", name: "Malls", active: false })],
      creatives,
    });
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [
          desiredCampaign("Airports", { fields: { cpm: usd("12.10"), active: true } }),
          desiredCampaign("Malls", { fields: { cpm: usd("12.10") } }),
        ],
      }),
    ]);
    expect(plan(d, live).findings).toEqual([]);
  });

  it("warns about a creative the plan associates with a new campaign created active", () => {
    const live = liveState({ creatives: [processing({ campaign_ids: [] })] });
    const fields = {
      start_time: "2026-12-20T00:00:00Z",
      end_time: "2027-01-20T00:00:00Z",
      budget_impressions: 50_000,
      cpm: usd("10"),
      active: true,
    };
    const p = plan(
      desiredState([
        desiredIo("1001", { campaigns: [desiredCampaign("Stations", { fields, creatives: ["9002"] })] }),
      ]),
      live,
    );
    expect(p.findings.map((f) => f.message)).toEqual([
      'creative 9002 cannot serve yet: it is PROCESSING, not PROCESSED, and this plan associates it with new campaign "Stations" of insertion order 1001, which will be active: it will not serve there',
    ]);
  });
});
