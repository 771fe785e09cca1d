/**
 * The answer check compares as plan compares (src/apply/answer-check.ts): the same value in
 * another form is taken, a member not taken (or taken otherwise) is named with what may explain
 * it. The end-to-end cases over HTTP are in inconsistent-result.test.ts.
 */
import { describe, expect, it } from "vitest";
import { differences } from "../../src/apply/answer-check.js";
import { DEFAULT_DIALECT } from "../../src/model/dialect.js";
import { dialectOf } from "../helpers/dialects.js";
import { usd, usdParts } from "../helpers/money.js";

const CAMPAIGNS = "/api/dsp/v1/campaigns";

describe("an answer in another form of the same values", () => {
  it("is as sent: money as parsed or spelled out, times with fractions or +00:00, sets and objects in another order", () => {
    const request = {
      method: "PATCH",
      path: CAMPAIGNS,
      body: {
        campaigns: [
          {
            id: "5001",
            cpm: usd("12.5"),
            start_time: "2026-12-01T00:00:00Z",
            pacing: { a: 1, b: [2] },
          },
        ],
      },
    };
    const answer = {
      campaigns: [
        {
          id: "5001",
          cpm: usdParts("12", 500_000_000),
          start_time: "2026-12-01T00:00:00.000000+00:00",
          pacing: { b: [2], a: 1 },
        },
      ],
    };
    expect(differences(request, answer, DEFAULT_DIALECT)).toEqual({ differences: [], absent: [] });

    const creatives = {
      method: "PATCH",
      path: "/api/dsp/v1/creatives",
      body: { creatives: [{ id: "9001", campaign_ids: ["5002", "5001"], category_ids: [] }] },
    };
    const shown = { creatives: [{ id: "9001", campaign_ids: ["5001", "5002"], category_ids: [] }] };
    expect(differences(creatives, shown, DEFAULT_DIALECT).differences).toEqual([]);
  });

  it("takes a targeting list in another order, exclude false left out, as the same list", () => {
    const sets = [
      { publisher_targeting_option: { publisher_ids: ["77"], exclude: true } },
      { venue_targeting_option: { venue_targeting_ids: ["102", "101"], exclude: false } },
    ];
    const answer = {
      targetings: [
        { venue_targeting_option: { venue_targeting_ids: ["101", "102"] } },
        { publisher_targeting_option: { publisher_ids: ["77"], exclude: true } },
      ],
    };
    const request = { method: "PUT", path: `${CAMPAIGNS}/5001/targetings`, body: { targetings: sets } };
    expect(differences(request, answer, DEFAULT_DIALECT).differences).toEqual([]);
    const dropped = differences(request, { targetings: [answer.targetings[0]] }, DEFAULT_DIALECT);
    expect(dropped.differences).toMatchObject([
      { object: "campaign 5001", member: "targetings", explain: expect.stringMatching(/^G5: /) },
    ]);
  });
});

describe("a member not taken", () => {
  it("names the object, the member as sent, both values and what may explain it", () => {
    const request = {
      method: "PATCH",
      path: CAMPAIGNS,
      body: { campaigns: [{ id: "5002", active: true, budget_impressions: 150_000 }] },
    };
    const found = differences(
      request,
      { campaigns: [{ id: "5002", active: true, budget_impressions: 100_000 }] },
      DEFAULT_DIALECT,
    );
    expect(found.differences).toEqual([
      {
        object: "campaign 5002",
        member: "budget_impressions",
        sent: 150_000,
        answered: 100_000,
        explain: "G4: PATCH /campaigns sets every member it carries, in request order",
        item: 0,
        field: "campaigns[0].budget_impressions",
      },
    ]);
  });

  it("reads the contract number under the dialect's member, and names that key", () => {
    const request = {
      method: "PATCH",
      path: "/api/dsp/v1/insertion_orders",
      body: { insertion_orders: [{ id: "1001", "po-number": "PO-2" }] },
    };
    const dialect = dialectOf({ contract_number: "po-number" });
    expect(
      differences(request, { insertion_orders: [{ id: "1001", contract_number: "PO-2" }] }, dialect)
        .differences,
    ).toEqual([]);
    const [kept] = differences(
      request,
      { insertion_orders: [{ id: "1001", contract_number: "PO-1" }] },
      dialect,
    ).differences;
    expect(kept).toMatchObject({
      member: "po-number",
      sent: "PO-2",
      answered: "PO-1",
      explain: expect.stringMatching(/^connection\.dialect\.contract_number \(G1\)/),
      field: "insertion_orders[0].po-number",
    });
  });

  it("says an answer that leaves a member out leaves it out, and an object left out cannot tell", () => {
    const request = {
      method: "PATCH",
      path: CAMPAIGNS,
      body: {
        campaigns: [
          { id: "5001", pacing: { strategy: "even" } },
          { id: "5002", active: false },
        ],
      },
    };
    const found = differences(request, { campaigns: [{ id: "5001" }] }, DEFAULT_DIALECT);
    expect(found.differences).toEqual([
      expect.objectContaining({ object: "campaign 5001", member: "pacing", sent: { strategy: "even" } }),
    ]);
    expect(found.differences[0]).not.toHaveProperty("answered");
    expect(found.absent).toEqual(["campaign 5002"]);
  });

  it("matches a create's campaigns by order, under the dialect's member", () => {
    const dialect = dialectOf({ create_campaigns_member: "new-campaigns" });
    const request = {
      method: "POST",
      path: CAMPAIGNS,
      body: { "new-campaigns": [{ insertion_order_id: "1001", name: "Harbour", active: false }] },
    };
    const [found] = differences(
      request,
      { campaigns: [{ id: "5010", insertion_order_id: "1001", name: "Harbour", active: true }] },
      dialect,
    ).differences;
    expect(found).toMatchObject({
      object: 'new campaign "Harbour" (5010)',
      member: "active",
      sent: false,
      answered: true,
      explain: expect.stringMatching(/^G3: /),
      field: "new-campaigns[0].active",
    });
  });
});
