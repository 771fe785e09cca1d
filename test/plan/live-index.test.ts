import { describe, expect, it } from "vitest";
import { deactivates } from "../../src/plan/changes/changes.js";
import { LiveIndex } from "../../src/plan/live-index.js";
import type { Change } from "../../src/plan/types.js";
import { liveCampaign, liveCreative, liveIo, liveState } from "../helpers/builders.js";

describe("LiveIndex", () => {
  const live = liveState({
    insertionOrders: [liveIo(), liveIo({ id: "1002" })],
    campaigns: [
      liveCampaign({ id: "5001", name: "Airports" }),
      liveCampaign({ id: "5003", name: "Malls", insertion_order_id: "1002" }),
      liveCampaign({ id: "5002", name: "Airports" }),
    ],
    creatives: [
      liveCreative({ id: "9001", campaign_ids: ["5001", "5003"] }),
      liveCreative({ id: "9002", campaign_ids: ["5001"] }),
    ],
  });
  const index = LiveIndex.of(live);

  it("finds every object by id", () => {
    expect(index.insertionOrders.get("1002")?.id).toBe("1002");
    expect(index.campaigns.get("5003")?.name).toBe("Malls");
    expect(index.creatives.get("9002")?.id).toBe("9002");
  });

  it("groups campaigns by insertion order and by name, in the order read", () => {
    expect(index.campaignsOf("1001").map((c) => c.id)).toEqual(["5001", "5002"]);
    expect(index.campaignsNamed("1001", "Airports").map((c) => c.id)).toEqual(["5001", "5002"]);
    expect(index.campaignsNamed("1002", "Airports")).toEqual([]);
    expect(index.campaignsOf("1003")).toEqual([]);
  });

  it("lists the creatives associated with each campaign", () => {
    expect(index.creativesOf("5001").map((c) => c.id)).toEqual(["9001", "9002"]);
    expect(index.creativesOf("5003").map((c) => c.id)).toEqual(["9001"]);
    expect(index.creativesOf("5002")).toEqual([]);
  });
});

describe("deactivates", () => {
  const campaign = { insertion_order_id: "1001", name: "Airports", campaign_id: "5001" };
  const base = { id: "c1", address: "campaign.1001/Airports", campaign };

  it("is true for an unmanaged deactivation and a declared active: false", () => {
    const unmanaged: Change = { ...base, kind: "deactivate_campaign", reason: "unmanaged" };
    const declared: Change = {
      ...base,
      kind: "update_campaign",
      fields: [{ field: "active", before: true, after: false }],
    };
    expect(deactivates(unmanaged)).toBe(true);
    expect(deactivates(declared)).toBe(true);
  });

  it("is false for an activation, another field and a pause for a targeting change", () => {
    const activation: Change = {
      ...base,
      kind: "update_campaign",
      fields: [{ field: "active", before: false, after: true }],
    };
    const cpm: Change = { ...base, kind: "update_campaign", fields: [{ field: "cpm", before: 1, after: 2 }] };
    const pause: Change = {
      ...base,
      kind: "replace_targetings",
      before: [],
      after: [],
      added: [],
      removed: [],
      pause: true,
    };
    expect([activation, cpm, pause].map(deactivates)).toEqual([false, false, false]);
  });
});
