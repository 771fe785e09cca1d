import { describe, expect, it } from "vitest";
import { traceFieldErrors } from "../../src/apply/failure.js";
import type { Change, PlannedRequest } from "../../src/plan/types.js";
import { source } from "../helpers/builders.js";

const cpmChange: Change = {
  id: "c2",
  kind: "update_campaign",
  address: "campaign.1001/Airports",
  source: source(10, "insertion_orders[0].campaigns[1]"),
  campaign: { insertion_order_id: "1001", name: "Airports", campaign_id: "5002" },
  fields: [
    {
      field: "cpm",
      before: { currency_code: "USD", units: "12", nanos: 0 },
      after: { currency_code: "EUR", units: "13", nanos: 0 },
      source: source(14, "insertion_orders[0].campaigns[1].cpm"),
    },
  ],
};
const otherChange: Change = {
  id: "c1",
  kind: "update_campaign",
  address: "campaign.1001/Malls",
  source: source(4, "insertion_orders[0].campaigns[0]"),
  campaign: { insertion_order_id: "1001", name: "Malls", campaign_id: "5001" },
  fields: [{ field: "budget_impressions", before: 10, after: 20, source: source(8) }],
};
const targetingChange: Change = {
  id: "c3",
  kind: "replace_targetings",
  address: "campaign.1001/Malls",
  source: source(20, "insertion_orders[0].campaigns[0].targetings"),
  campaign: { insertion_order_id: "1001", name: "Malls", campaign_id: "5001" },
  before: [],
  after: [],
  added: [],
  removed: [],
  pause: false,
};
const changes = new Map([cpmChange, otherChange, targetingChange].map((c) => [c.id, c]));

function request(overrides: Partial<PlannedRequest>): PlannedRequest {
  return {
    seq: 1,
    phase: 3,
    method: "PATCH",
    path: "/api/dsp/v1/campaigns",
    body: null,
    items: 2,
    change_ids: ["c1", "c2"],
    item_change_ids: [["c1"], ["c2"]],
    description: "PATCH 2 campaigns",
    ...overrides,
  };
}

describe("traceFieldErrors", () => {
  it("maps campaigns[1].cpm to the item's change and the line where cpm was written", () => {
    const [traced] = traceFieldErrors(
      request({}),
      [{ field: "campaigns[1].cpm", messages: ["currency must be USD"] }],
      changes,
    );
    expect(traced).toEqual({
      field: "campaigns[1].cpm",
      messages: ["currency must be USD"],
      item: 1,
      change_ids: ["c2"],
      addresses: ["campaign.1001/Airports"],
      sources: [source(14, "insertion_orders[0].campaigns[1].cpm")],
    });
  });

  it("falls back to the change's own place when the refused field was not one it changed", () => {
    const [traced] = traceFieldErrors(
      request({}),
      [{ field: "campaigns[0].end_time", messages: ["must lie within the insertion order flight"] }],
      changes,
    );
    expect(traced?.sources).toEqual([source(4, "insertion_orders[0].campaigns[0]")]);
  });

  it("maps an unindexed field of a single-object PUT to the targeting change", () => {
    const [traced] = traceFieldErrors(
      request({
        method: "PUT",
        path: "/api/dsp/v1/campaigns/5001/targetings",
        items: 1,
        change_ids: ["c3"],
        item_change_ids: [["c3"]],
      }),
      [{ field: "targetings", messages: ["cannot remove targetings from an active campaign"] }],
      changes,
    );
    expect(traced?.item).toBe(0);
    expect(traced?.sources).toEqual([source(20, "insertion_orders[0].campaigns[0].targetings")]);
  });

  it("names every change of the request for a field about the whole batch", () => {
    const [traced] = traceFieldErrors(
      request({}),
      [{ field: "campaigns", messages: ["must contain between 1 and 100 items"] }],
      changes,
    );
    expect(traced?.item).toBeUndefined();
    expect(traced?.change_ids).toEqual(["c1", "c2"]);
    expect(traced?.addresses).toEqual(["campaign.1001/Malls", "campaign.1001/Airports"]);
  });
});
