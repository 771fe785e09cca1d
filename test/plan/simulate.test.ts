import { describe, expect, it } from "vitest";
import { Money } from "../../src/model/money.js";
import { simulate } from "../../src/plan/findings/simulate.js";
import { LiveIndex } from "../../src/plan/live-index.js";
import type { LiveState, PlannedRequest } from "../../src/plan/types.js";
import { campaignCreate, liveCampaign, liveIo, liveState, venue } from "../helpers/builders.js";
import { usd } from "../helpers/money.js";

function request(seq: number, method: PlannedRequest["method"], path: string, body: unknown): PlannedRequest {
  const items = (Object.values(body as object)[0] as unknown[] | undefined)?.length ?? 1;
  return {
    seq,
    phase: 3,
    method,
    path,
    body: body as PlannedRequest["body"],
    items,
    change_ids: [`c${seq}`],
    item_change_ids: Array.from({ length: items }, (_, i) => [`c${seq}.${i}`]),
    description: "",
  } as PlannedRequest;
}

function run(live: LiveState, requests: PlannedRequest[]) {
  return simulate({ live: LiveIndex.of(live), targetings: live.targetings, requests });
}

const twoCampaigns = () =>
  liveState({
    insertionOrders: [liveIo({ budget_impressions: 200_000 })],
    campaigns: [liveCampaign(), liveCampaign({ id: "5002", name: "Malls" })],
  });

describe("simulate: G8 on every state the requests pass through", () => {
  it("lets one batch move budget between two campaigns of an insertion order (G8: checked on the state it produces)", () => {
    const patch = request(1, "PATCH", "/campaigns", {
      campaigns: [
        { id: "5001", budget_impressions: 150_000 },
        { id: "5002", budget_impressions: 50_000 },
      ],
    });
    expect(run(twoCampaigns(), [patch])).toEqual([]);
  });

  it("refuses the same move sent one campaign at a time: the sum is over the budget on the way (DOOH702)", () => {
    const raise = request(1, "PATCH", "/campaigns", {
      campaigns: [{ id: "5001", budget_impressions: 150_000 }],
    });
    const lower = request(2, "PATCH", "/campaigns", {
      campaigns: [{ id: "5002", budget_impressions: 50_000 }],
    });
    const findings = run(twoCampaigns(), [raise, lower]);
    expect(findings.map((f) => f.code)).toEqual(["DOOH702"]);
    expect(findings[0]!.message).toContain(
      "after request 1, insertion order 1001: campaign budgets add up to 250,000",
    );
  });

  it("counts a created campaign in its insertion order's budget sum (DOOH701 at the end)", () => {
    const create = request(1, "POST", "/campaigns", {
      campaigns: [
        campaignCreate({
          name: "Stations",
          start_time: "2026-12-15T00:00:00Z",
          end_time: "2027-02-01T00:00:00Z",
          budget_impressions: 1,
          cpm: usd("12"),
        }),
      ],
    });
    const findings = run(twoCampaigns(), [create]);
    expect(findings.map((f) => f.code)).toEqual(["DOOH701"]);
    expect(findings[0]!.message).toContain("200,001 impressions");
    expect(findings[0]!.message).toContain('"Stations" 1 (live, not in the config)');
  });

  it("says a campaign's flight outside its insertion order's once the insertion order narrows, and a cpm in another currency", () => {
    const narrow = request(1, "PATCH", "/insertion_orders", {
      insertion_orders: [
        { id: "1001", end_time: "2027-01-01T00:00:00Z", budget_money: Money.parse("25000 EUR") },
      ],
    });
    const messages = run(twoCampaigns(), [narrow]).map((f) => `${f.code} ${f.message}`);
    expect(messages).toEqual([
      expect.stringContaining(
        "DOOH701 the desired state breaks a rule the DSP enforces on every write (see docs/assumptions.md#g8): campaign 1001/Airports: flight 2026-12-15T00:00:00Z to 2027-02-01T00:00:00Z is outside insertion order 1001's flight 2026-12-01T00:00:00Z to 2027-01-01T00:00:00Z",
      ),
      expect.stringContaining(
        "campaign 1001/Airports: cpm in USD but insertion order 1001's budget_money is in EUR",
      ),
      expect.stringContaining("campaign 1001/Malls: flight"),
      expect.stringContaining("campaign 1001/Malls: cpm in USD"),
    ]);
  });

  it("says a flight that does not start before it ends alone, not also where it lies", () => {
    const invert = request(1, "PATCH", "/campaigns", {
      campaigns: [{ id: "5001", start_time: "2027-02-01T00:00:00Z", end_time: "2026-11-01T00:00:00Z" }],
    });
    const messages = run(twoCampaigns(), [invert]).map((f) => f.message);
    expect(messages).toEqual([
      expect.stringMatching(
        /campaign 1001\/Airports: start_time 2027-02-01T00:00:00Z is not before end_time 2026-11-01T00:00:00Z$/,
      ),
    ]);
  });

  it("refuses a targeting PUT that removes an option set from an active campaign (G5), and never changes the live state it reads", () => {
    const live = liveState({ campaigns: [liveCampaign()], targetings: { "5001": [venue("1")] } });
    const before = structuredClone(live);
    const put = request(1, "PUT", "/campaigns/5001/targetings", { targetings: [venue("2")] });
    const raise = request(2, "PATCH", "/campaigns", {
      campaigns: [{ id: "5001", budget_impressions: 2_000_000 }],
    });
    const findings = run(live, [put, raise]);
    expect(findings.map((f) => f.code)).toEqual(["DOOH701", "DOOH702"]);
    expect(findings[1]!.message).toContain("would lose a targeting option set while active");
    expect(live).toEqual(before);
  });
});
