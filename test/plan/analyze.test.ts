import { describe, expect, it } from "vitest";
import type { CampaignFields } from "../../src/model/desired.js";
import { PUBLISHED_RATE_LIMITS } from "../../src/model/limits.js";
import { writeSendTimes } from "../../src/plan/window.js";
import { desiredCampaign, desiredIo, desiredState, liveCampaign, liveState } from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { plan } from "../helpers/plans.js";

/** When the last of `writes` may go at the published write window (the plan's estimate). */
const estimateApplyMs = (writes: number, busy: readonly number[] = []) =>
  writeSendTimes(writes, PUBLISHED_RATE_LIMITS.write, busy).at(-1) ?? 0;

describe("analyzers", () => {
  it("flags budget and cpm increases above their thresholds (DOOH401), configurably", () => {
    const live = liveState({ campaigns: [liveCampaign()] });
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [desiredCampaign("Airports", { fields: { cpm: usd("15"), budget_impressions: 140_000 } })],
      }),
    ]);
    const p = plan(d, live);
    expect(p.findings.map((f) => f.message)).toEqual([
      'raises cpm of campaign 5001 "Airports", 12.00 USD -> 15.00 USD (+25%, above the 20% threshold)',
    ]);
    expect(
      plan(d, live, { thresholds: { cpm_increase_percent: 30, budget_increase_percent: 30 } }).findings.map(
        (f) => f.code,
      ),
    ).toEqual(["DOOH401"]);
  });

  it("judges an increase exactly against its threshold, and quotes the digits that tell them apart (DOOH401)", () => {
    const live = liveState({ campaigns: [liveCampaign()] });
    const raise = (fields: CampaignFields) =>
      plan(desiredState([desiredIo("1001", { campaigns: [desiredCampaign("Airports", { fields })] })]), live);
    // 12.00 -> 14.40 USD is (14.40 - 12) / 12 = +20% exactly, at the 20% threshold: no finding.
    // 100,000 -> 150,000 is +50% exactly, at the 50% threshold: none either.
    expect(raise({ cpm: usd("14.40"), budget_impressions: 150_000 }).findings).toEqual([]);
    // 14.400001 USD is 2.400001 / 12 = +20.0000083...%, and 150,001 is +50.001%: both above.
    // The percent is cut to hundredths no more: 20.00 used to read as not above 20.
    expect(
      raise({ cpm: usd("14.400001"), budget_impressions: 150_001 }).findings.map((f) => f.message),
    ).toEqual([
      'raises budget_impressions of campaign 5001 "Airports", 100,000 -> 150,001 (+50.001%, above the 50% threshold)',
      'raises cpm of campaign 5001 "Airports", 12.00 USD -> 14.400001 USD (+20.00001%, above the 20% threshold)',
    ]);
  });

  it("warns about editing a campaign whose flight has ended (DOOH301)", () => {
    const live = liveState({ campaigns: [liveCampaign({ end_time: "2027-01-01T00:00:00Z" })] });
    const d = desiredState([
      desiredIo("1001", { campaigns: [desiredCampaign("Airports", { fields: { cpm: usd("12.10") } })] }),
    ]);
    expect(plan(d, live, { now: "2027-01-02T00:00:00Z" }).findings.map((f) => f.code)).toEqual(["DOOH301"]);
    expect(plan(d, live).findings).toEqual([]);
  });

  it("warns about creating a campaign whose flight has already ended (DOOH301), as in a copied example", () => {
    const live = liveState({ campaigns: [] });
    const d = desiredState([
      desiredIo("1001", {
        campaigns: [
          desiredCampaign("January clearance", {
            fields: {
              start_time: "2027-01-01T00:00:00Z",
              end_time: "2027-02-01T00:00:00Z",
              budget_impressions: 400_000,
              cpm: usd("8.25"),
            },
          }),
        ],
      }),
    ]);
    const later = plan(d, live, { now: "2028-03-01T00:00:00Z" }).findings;
    expect(later.map((f) => [f.code, f.message])).toEqual([
      [
        "DOOH301",
        'creates campaign "January clearance", whose flight ended 2027-02-01T00:00:00Z: it will never deliver; give it dates in the future, or leave it out',
      ],
    ]);
    // Its last instant is the end itself: a flight that ends now has ended.
    expect(plan(d, live, { now: "2027-02-01T00:00:00Z" }).findings.map((f) => f.code)).toEqual(["DOOH301"]);
    expect(plan(d, live, { now: "2027-01-31T23:59:59Z" }).findings).toEqual([]);
  });

  it("says a reopened flight delivers again (DOOH301), and a deactivation in flight stops delivery (DOOH101)", () => {
    // 5001 "Airports" ran Dec 15 .. Jan 1 and ended; on Jan 2 the config moves its end to
    // Feb 1: the campaign is active, so it delivers again as soon as the change is applied.
    const ended = liveState({ campaigns: [liveCampaign({ end_time: "2027-01-01T00:00:00Z" })] });
    const reopen = desiredState([
      desiredIo("1001", {
        campaigns: [desiredCampaign("Airports", { fields: { end_time: "2027-02-01T00:00:00Z" } })],
      }),
    ]);
    const reopened = plan(reopen, ended, { now: "2027-01-02T00:00:00Z" }).findings.find(
      (f) => f.code === "DOOH301",
    );
    expect(reopened?.message).toBe(
      'edits campaign 5001 "Airports", whose flight ended 2027-01-01T00:00:00Z: check this change is meant; its new end_time 2027-02-01T00:00:00Z is after now, so delivery starts again at apply',
    );
    // In flight on Jan 2 (Dec 15 .. Feb 1) and active: `active: false` stops its delivery.
    const flying = liveState({ campaigns: [liveCampaign({ in_flight: true })] });
    const stop = desiredState([
      desiredIo("1001", { campaigns: [desiredCampaign("Airports", { fields: { active: false } })] }),
    ]);
    const stopped = plan(stop, flying, { now: "2027-01-02T00:00:00Z" }).findings.find(
      (f) => f.code === "DOOH101",
    );
    expect(stopped?.message).toBe(
      'deactivates live campaign 5001 "Airports", in flight until 2027-02-01T00:00:00Z: delivery stops at apply',
    );
  });

  it("summarizes money and impression deltas per insertion order with the apply estimate", () => {
    const campaigns = [
      liveCampaign(),
      liveCampaign({ id: "5002", name: "Malls" }),
      liveCampaign({ id: "5003", name: "Rail" }),
    ];
    const d = desiredState([
      desiredIo("1001", {
        fields: { budget_money: usd("27500") },
        campaigns: campaigns.map((c) => desiredCampaign(c.name, { fields: { cpm: usd("12.50") } })),
      }),
    ]);
    const p = plan(d, liveState({ campaigns }));
    expect(p.summary.insertion_orders).toEqual([
      {
        insertion_order_id: "1001",
        // 27,500 - 25,000 = +2,500
        lines: [
          "budget_money 25,000.00 USD -> 27,500.00 USD (+2,500.00 USD)",
          "cpm 12.00 -> 12.50 USD on 3 campaigns",
        ],
      },
    ]);
    expect(p.summary.actions).toEqual({ update_insertion_order: 1, update_campaign: 3 });
  });

  it("estimates writes at the window as it stands: 8 into an empty 10/60s window go at once", async () => {
    const { Time } = await import("../../src/model/time.js");
    expect(estimateApplyMs(8)).toBe(0);
    expect(estimateApplyMs(1)).toBe(0);
    // The 11th waits for the 1st's slot; 43 go in five bursts of at most 10, a window apart.
    expect(estimateApplyMs(11)).toBe(60_000);
    expect(Time.formatDuration(estimateApplyMs(43))).toBe("4m00s");
  });

  it("counts the write slots other runs hold: 9 held, freeing in 20 s to 36 s, delay the 2nd of 3 writes", async () => {
    const busy = [20_000, 22_000, 24_000, 26_000, 28_000, 30_000, 32_000, 34_000, 36_000];
    expect(estimateApplyMs(1, busy)).toBe(0);
    expect(estimateApplyMs(2, busy)).toBe(20_000);
    expect(estimateApplyMs(3, busy)).toBe(22_000);
    const p = plan(desiredState([desiredIo("1001", { fields: { contract_number: "PO-2" } })]), liveState(), {
      writeWindowBusyMs: busy,
    });
    expect(p.summary.write_slots_in_use).toBe(9);
  });
});
