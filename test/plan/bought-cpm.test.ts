/**
 * DOOH303 states the cpm the delivered impressions were bought at (spend x 1000 / delivered),
 * not the cpm in the config, which may have drifted.
 */
import { describe, expect, it } from "vitest";
import { Money } from "../../src/model/money.js";
import { boughtCpm } from "../../src/plan/findings/delivery.js";
import { desiredCampaign, desiredIo, desiredState, liveCampaign, liveState } from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { plan } from "../helpers/plans.js";

const progress = (impressions: number, spend: Money) => ({ impressions_delivered: impressions, spend });

describe("the cpm delivered impressions were bought at", () => {
  it("is spend x 1000 / delivered, and none when nothing was delivered", () => {
    // 652.125 x 1000 / 43,475 = 15.00
    expect(boughtCpm(usd("652.125"), 43_475)).toEqual(usd("15"));
    // 1,646.69895 x 1000 / 187,658 = 8.775
    expect(boughtCpm(usd("1646.69895"), 187_658)).toEqual(usd("8.775"));
    expect(boughtCpm(usd("0"), 0)).toBeUndefined();
  });

  it("rounds half to even at the nano", () => {
    // 1 x 1000 / 3 = 333.333333333|33... -> 333.333333333
    expect(Money.format(boughtCpm(usd("1"), 3)!)).toBe("333.333333333 USD");
    // 0.000000001 x 1000 / 2000 = 0.0000000005: exactly half a nano, 0 is even -> 0
    expect(Money.format(boughtCpm(usd("0.000000001"), 2_000)!)).toBe("0.00 USD");
    // 0.000000003 x 1000 / 2000 = 0.0000000015: half between 1 and 2 nanos, 1 is odd -> 2
    expect(Money.format(boughtCpm(usd("0.000000003"), 2_000)!)).toBe("0.000000002 USD");
  });

  it("names the price paid in DOOH303 when it differs from the campaign's cpm (drift)", () => {
    const live = liveState({
      campaigns: [
        liveCampaign({
          in_flight: true,
          budget_impressions: 300_000,
          cpm: usd("25"),
          // bought at 15.00 before the cpm was set to 25.00 outside doohctl: 43,475 x 15 / 1000
          progress: progress(43_475, usd("652.125")),
        }),
      ],
    });
    const d = desiredState([
      desiredIo("1001", { campaigns: [desiredCampaign("Airports", { fields: { cpm: usd("30") } })] }),
    ]);
    const warning = plan(d, live).findings.find((f) => f.code === "DOOH303");
    // 43,475 / 300,000 = 14.49% -> 14.5%; 652.125 shown in cents, half-even: 652.12;
    // 300,000 - 43,475 = 256,525 left at the new cpm
    expect(warning?.message).toBe(
      'changes the cpm of campaign 5001 "Airports" mid-flight, 25.00 USD -> 30.00 USD: 14.5% of its budget (43,475 of 300,000 impressions) was bought for 652.12 USD at an average cpm of 15.00 USD, not the 25.00 USD the campaign has now; the new cpm applies to the remaining 256,525',
    );
  });
});
