/** A plan touching every change kind, for golden tests of the renderers. */
import { Money } from "../../src/model/money.js";
import type { Plan } from "../../src/plan/types.js";
import {
  desiredCampaign,
  desiredCreative,
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
import { plan } from "../helpers/plans.js";

export function richPlan(): Plan {
  const live = liveState({
    insertionOrders: [liveIo(), liveIo({ id: "1002", name: "Spring", budget_impressions: null })],
    campaigns: [
      liveCampaign(),
      liveCampaign({ id: "5002", name: "Malls", active: false, pacing: { strategy: "even" } }),
      liveCampaign({ id: "5003", name: "Old", budget_impressions: 10_000 }),
      liveCampaign({ id: "5004", insertion_order_id: "1002", name: "Rail", cpm: usd("12") }),
    ],
    targetings: { "5001": [venue("v1"), publisher("p9")] },
    creatives: [
      liveCreative({ id: "9001", campaign_ids: ["5001", "7777"] }),
      liveCreative({ id: "9002", processing_status: "PROCESSING" }),
    ],
    readRequests: 6,
  });
  const d = desiredState(
    [
      desiredIo("1001", {
        fields: { budget_impressions: 1_200_000, end_time: "2027-02-20T00:00:00Z" },
        unmanaged: "deactivate",
        campaigns: [
          desiredCampaign("Airports", { targetings: [venue("v1", "v2")], creatives: ["9002"] }),
          desiredCampaign("Malls", {
            fields: { active: true, cpm: usd("12.50"), pacing: { strategy: "asap" } },
          }),
          desiredCampaign("Stations", {
            fields: {
              active: true,
              start_time: "2026-12-20T00:00:00Z",
              end_time: "2027-01-20T00:00:00Z",
              budget_impressions: 50_000,
              cpm: usd("9"),
            },
            targetings: [venue("v3")],
          }),
        ],
      }),
      desiredIo("1002", { campaigns: [desiredCampaign("Rail", { fields: { cpm: usd("12.50") } })] }),
    ],
    [desiredCreative("9001", { pixel_url: "https://pixel.example.com/new" })],
  );
  return plan(d, live);
}

/**
 * A plan moving money for two advertisers in two currencies, read with progress (G2): a
 * budget raise, a cpm cut, a new campaign, a deactivation and an insertion order's
 * budget_money raise. Hand calculation of the money table (docs/plan.md, "Money"):
 *   Northwind USD: Airports 300 + (100,000 - 25,000) x 12 / 1000 = 1,200; Malls 120 +
 *   (80,000 - 10,000) x 12 / 1000 = 960; before 2,160. After: Airports 300 + (160,000 -
 *   25,000) x 12 / 1000 = 1,920, Malls (deactivated) 960, Stations 50,000 x 9 / 1000 = 450:
 *   3,330 (+1,170, +54.2%); spent 420, left 3,330 - 420 = 2,910.
 *   advertiser 2 EUR: Rail 825 + 300,000 x 8.25 / 1000 = 3,300; after 825 + 300,000 x 7.9 /
 *   1000 = 3,195 (-105, -3.2%); left 3,195 - 825 = 2,370.
 *   insertion order 1002 budget_money 40,000 -> 45,000 EUR: +5,000 (+12.5%).
 */
export function spendPlan(): Plan {
  const eur = (text: string) => Money.parse(`${text} EUR`);
  const progress = (impressions: number, spend: Money) => ({ impressions_delivered: impressions, spend });
  const live = liveState({
    insertionOrders: [liveIo(), liveIo({ id: "1002", advertiser_id: "2", budget_money: eur("40000") })],
    campaigns: [
      liveCampaign({ progress: progress(25_000, usd("300")) }),
      liveCampaign({
        id: "5002",
        name: "Malls",
        budget_impressions: 80_000,
        progress: progress(10_000, usd("120")),
      }),
      liveCampaign({
        id: "5003",
        insertion_order_id: "1002",
        name: "Rail",
        cpm: eur("8.25"),
        budget_impressions: 400_000,
        progress: progress(100_000, eur("825")),
      }),
    ],
    readRequests: 2,
  });
  const d = desiredState([
    desiredIo("1001", {
      unmanaged: "deactivate",
      campaigns: [
        desiredCampaign("Airports", { fields: { budget_impressions: 160_000 } }),
        desiredCampaign("Stations", {
          fields: {
            active: true,
            start_time: "2026-12-20T00:00:00Z",
            end_time: "2027-01-20T00:00:00Z",
            budget_impressions: 50_000,
            cpm: usd("9"),
          },
        }),
      ],
    }),
    desiredIo("1002", {
      fields: { budget_money: eur("45000") },
      campaigns: [desiredCampaign("Rail", { fields: { cpm: eur("7.9") } })],
    }),
  ]);
  return plan(d, live);
}
