import { describe, expect, it } from "vitest";
import { desiredCampaign, desiredIo, desiredState, liveCampaign, liveState } from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { plan } from "../helpers/plans.js";

const codes = (p: ReturnType<typeof plan>) => p.findings.map((f) => `${f.code} ${f.severity}`);

describe("createPlan: identity", () => {
  it("asks for an id when two live campaigns share the name of an unpinned one", () => {
    const live = liveState({ campaigns: [liveCampaign(), liveCampaign({ id: "5002" })] });
    const p = plan(
      desiredState([
        desiredIo("1001", { campaigns: [desiredCampaign("Airports", { fields: { cpm: usd("1") } })] }),
      ]),
      live,
    );
    expect(codes(p)).toEqual(["DOOH002 error"]);
    expect(p.findings[0]!.message).toContain("(ids 5001, 5002): add id");
    expect(p.requests).toEqual([]);
  });

  it("pins by id even when another live campaign has the same name", () => {
    const live = liveState({ campaigns: [liveCampaign(), liveCampaign({ id: "5002" })] });
    const p = plan(
      desiredState([
        desiredIo("1001", {
          campaigns: [desiredCampaign("Airports", { id: "5002", fields: { cpm: usd("13") } })],
        }),
      ]),
      live,
    );
    expect(p.findings).toEqual([]);
    expect(p.requests[0]!.body).toEqual({ campaigns: [{ id: "5002", cpm: usd("13") }] });
  });

  it("refuses a pinned campaign whose live name differs, since names cannot change (G2)", () => {
    const live = liveState({ campaigns: [liveCampaign({ name: "Airport" })] });
    const p = plan(
      desiredState([desiredIo("1001", { campaigns: [desiredCampaign("Airports", { id: "5001" })] })]),
      live,
    );
    expect(codes(p)).toEqual(["DOOH005 error"]);
    expect(p.findings[0]!.message).toContain('write name: "Airport"');
  });

  it("refuses a pinned id that does not exist, and one that lives in another insertion order", () => {
    const live = liveState({ campaigns: [liveCampaign({ id: "6001", insertion_order_id: "1002" })] });
    const p = plan(
      desiredState([
        desiredIo("1001", {
          campaigns: [desiredCampaign("Ghost", { id: "5999" }), desiredCampaign("Airports", { id: "6001" })],
        }),
      ]),
      live,
    );
    expect(codes(p)).toEqual(["DOOH003 error", "DOOH004 error"]);
    expect(p.findings[1]!.message).toContain("belongs to insertion order 1002");
  });

  it("numbers changes c1, c2, ... in plan order and gives the same plan for the same inputs", () => {
    const live = liveState({ campaigns: [liveCampaign(), liveCampaign({ id: "5002", name: "Malls" })] });
    const d = desiredState([
      desiredIo("1001", {
        fields: { contract_number: "PO-9" },
        campaigns: [
          desiredCampaign("Malls", { fields: { cpm: usd("2") } }),
          desiredCampaign("Airports", { fields: { cpm: usd("3") } }),
        ],
      }),
    ]);
    const first = plan(d, live);
    expect(first.changes.map((c) => `${c.id} ${c.address}`)).toEqual([
      "c1 insertion_order.1001",
      "c2 campaign.1001/Malls",
      "c3 campaign.1001/Airports",
    ]);
    expect(plan(d, live)).toEqual(first);
  });
});

describe("createPlan: unmanaged campaigns", () => {
  const live = () =>
    liveState({
      campaigns: [
        liveCampaign(),
        liveCampaign({ id: "5002", name: "Old" }),
        liveCampaign({ id: "5003", name: "Off", active: false }),
      ],
    });

  it("leaves unlisted campaigns alone by default", () => {
    expect(
      plan(desiredState([desiredIo("1001", { campaigns: [desiredCampaign("Airports")] })]), live()).changes,
    ).toEqual([]);
  });

  it("deactivates active unlisted campaigns with unmanaged_campaigns: deactivate, and says so", () => {
    const p = plan(
      desiredState([
        desiredIo("1001", { unmanaged: "deactivate", campaigns: [desiredCampaign("Airports")] }),
      ]),
      live(),
    );
    expect(p.changes.map((c) => [c.kind, c.address])).toEqual([["deactivate_campaign", "campaign.1001/Old"]]);
    expect(p.requests.map((r) => r.body)).toEqual([{ campaigns: [{ id: "5002", active: false }] }]);
    expect(codes(p)).toEqual(["DOOH101 warning"]);
  });

  it("never deactivates campaigns of another insertion order under --target of one campaign", () => {
    const p = plan(
      desiredState([
        desiredIo("1001", {
          unmanaged: "deactivate",
          campaigns: [desiredCampaign("Airports", { fields: { cpm: usd("5") } })],
        }),
      ]),
      live(),
      { targets: ["5001"] },
    );
    expect(p.changes.map((c) => c.kind)).toEqual(["update_campaign"]);
  });

  it("refuses a --target that names nothing in the config", () => {
    const p = plan(desiredState([desiredIo("1001")]), live(), { targets: ["31337"] });
    expect(codes(p)).toEqual(["DOOH009 error"]);
  });

  it("refuses a --target naming a live campaign the config does not manage, instead of planning nothing", () => {
    const live = liveState({ campaigns: [liveCampaign(), liveCampaign({ id: "5002", name: "Malls" })] });
    const declared = [desiredCampaign("Airports", { fields: { cpm: usd("13") } })];
    const p = plan(desiredState([desiredIo("1001", { campaigns: declared })]), live, { targets: ["5002"] });
    expect(codes(p)).toEqual(["DOOH009 error"]);
    expect(p.findings[0]!.message).toMatch(
      /campaign "Malls" of insertion order 1001, which the config does not manage/,
    );
    // Managed by name, or by the deactivate policy: a valid target.
    expect(
      codes(plan(desiredState([desiredIo("1001", { campaigns: declared })]), live, { targets: ["5001"] })),
    ).toEqual([]);
    const sweeping = desiredIo("1001", { campaigns: declared, unmanaged: "deactivate" });
    const swept = plan(desiredState([sweeping]), live, { targets: ["5002"] });
    expect(codes(swept)).toEqual(["DOOH101 warning"]);
  });
});
