import { describe, expect, it } from "vitest";
import { changedSince } from "../../src/plan/changes/changed.js";
import {
  desiredCampaign,
  desiredCreative,
  desiredIo,
  desiredState,
  liveCampaign,
  liveState,
  publisher,
  source,
} from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { plan } from "../helpers/plans.js";

const REF = { since: "main", commit: "a".repeat(40) };
const NEW = {
  start_time: "2026-12-15T00:00:00Z",
  end_time: "2027-01-01T00:00:00Z",
  budget_impressions: 1,
  cpm: usd("1"),
};

describe("changedSince", () => {
  it("sees nothing in a block moved to another file or line", () => {
    const base = desiredState([
      desiredIo("1001", { campaigns: [desiredCampaign("A", { fields: { cpm: usd("1") } })] }),
    ]);
    const moved = desiredState([
      desiredIo("1001", { campaigns: [desiredCampaign("A", { fields: { cpm: usd("1") }, line: 90 })] }),
    ]);
    moved.insertionOrders[0]!.source = source(70, "elsewhere");
    expect(changedSince(base, moved, REF)).toMatchObject({
      insertion_orders: [],
      campaigns: [],
      removed_campaigns: [],
      creatives: [],
      not_refreshed: 2,
    });
  });

  it("names added, changed and removed campaigns, a changed order and a changed creative", () => {
    const base = desiredState(
      [
        desiredIo("1001", {
          campaigns: [
            desiredCampaign("A", { fields: { cpm: usd("1") } }),
            desiredCampaign("Gone", { id: "5009" }),
            desiredCampaign("Same"),
          ],
        }),
      ],
      [desiredCreative("9001", { category_ids: ["1"] }), desiredCreative("9002", { category_ids: ["1"] })],
    );
    const head = desiredState(
      [
        desiredIo("1001", {
          unmanaged: "deactivate",
          campaigns: [
            desiredCampaign("A", { fields: { cpm: usd("2") } }),
            desiredCampaign("Same"),
            desiredCampaign("B", { targetings: [publisher("7")] }),
          ],
        }),
        desiredIo("1002", { campaigns: [desiredCampaign("C")] }),
      ],
      [desiredCreative("9001", { category_ids: ["1"] }), desiredCreative("9002", { category_ids: ["2"] })],
    );
    expect(changedSince(base, head, REF)).toEqual({
      since: "main",
      commit: REF.commit,
      insertion_orders: ["1001", "1002"],
      campaigns: [
        { insertion_order_id: "1001", name: "A", added: false },
        { insertion_order_id: "1001", name: "B", added: true },
        { insertion_order_id: "1002", name: "C", added: true },
      ],
      removed_campaigns: [{ insertion_order_id: "1001", name: "Gone", id: "5009" }],
      creatives: ["9002"],
      not_refreshed: 2 + 4 + 2 - 2 - 3 - 1,
    });
  });
});

describe("createPlan: near-identical names (DOOH013)", () => {
  it("warns when a campaign to create differs from a live one only by Unicode form, case or spaces", () => {
    // "Cafe\u0301" is "Café" decomposed; NFC makes it the live name's form.
    const live = liveState({ campaigns: [liveCampaign({ name: "Café Airports" })] });
    const p = plan(
      desiredState([
        desiredIo("1001", { campaigns: [desiredCampaign(" cafe\u0301 AIRPORTS ", { fields: NEW })] }),
      ]),
      live,
    );
    expect(p.changes.map((c) => c.kind)).toEqual(["create_campaign"]);
    expect(p.findings).toContainEqual(
      expect.objectContaining({
        code: "DOOH013",
        severity: "warning",
        address: "campaign.1001/ cafe\u0301 AIRPORTS ",
      }),
    );
    expect(p.findings.find((f) => f.code === "DOOH013")?.message).toContain(
      'live campaign 5001 "Café Airports"',
    );
  });

  it("says nothing for a clearly different name", () => {
    const live = liveState({ campaigns: [liveCampaign({ name: "Airports" })] });
    const p = plan(
      desiredState([desiredIo("1001", { campaigns: [desiredCampaign("Airports 2", { fields: NEW })] })]),
      live,
    );
    expect(p.findings.map((f) => f.code)).not.toContain("DOOH013");
  });
});
