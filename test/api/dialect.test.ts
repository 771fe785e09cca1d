/**
 * The client's side of a dialect (src/model/dialect.ts): requests built at its paths and
 * members (endpoints.ts), answers read back into the contract's names before the contract
 * judges them (members.ts, answer.ts). Over the wire against an emulator serving each
 * dialect: test/cli/dialect.test.ts.
 */
import { describe, expect, it } from "vitest";
import { trustedBody } from "../../src/api/answer.js";
import { contractPath, createdItems, endpointsFor } from "../../src/api/endpoints.js";
import { ContractError } from "../../src/api/errors.js";
import type { ApiRequest } from "../../src/api/types.js";
import { DEFAULT_DIALECT, type Dialect, parseDialect } from "../../src/model/dialect.js";
import { Scrubber } from "../../src/model/scrub.js";
import { campaignMembers } from "../helpers/builders.js";
import { dialectOf } from "../helpers/dialects.js";

const ALL = dialectOf({
  insertion_orders_path: "/orders",
  contract_number: "po_number",
  progress: { parameter: "with=delivery", member: "delivery", impressions: "impressions", spend: "cost" },
  targetings: { read_path: "/targeting_sets/{id}", member: "sets" },
  campaign_targetings: "targeting_sets",
  create_campaigns_member: "items",
});
const scrubber = new Scrubber([]);
const usd = (units: string) => ({ currency_code: "USD", units, nanos: 0 });

const read = (dialect: Dialect, request: ApiRequest, body: unknown) =>
  trustedBody(request, { status: 200, headers: {}, text: JSON.stringify(body) }, scrubber, { dialect });

const campaign = (id: string, extra: Record<string, unknown> = {}) => ({
  ...campaignMembers({ id, name: `Campaign ${id}`, active: true, in_flight: true, budget_impressions: 1000 }),
  ...extra,
});
const order = (extra: Record<string, unknown>) => ({
  id: "1001",
  advertiser_id: "77",
  name: "Order",
  start_time: "2026-12-01T00:00:00Z",
  end_time: "2027-01-01T00:00:00Z",
  budget_impressions: null,
  budget_money: null,
  ...extra,
});

describe("requests a dialect places", () => {
  const endpoints = endpointsFor(ALL);

  it("reads insertion orders and targetings at its paths, asks progress by its parameter", () => {
    expect(endpoints.insertionOrders.request({ pageSize: 100 })).toEqual({
      method: "GET",
      path: "/api/dsp/v1/orders",
      query: [["page_size", "100"]],
    });
    expect(endpoints.getInsertionOrder("10 01").path).toBe("/api/dsp/v1/orders/10%2001");
    expect(endpoints.getTargetings("5001").path).toBe("/api/dsp/v1/targeting_sets/5001");
    expect(endpoints.campaigns.request({ includeProgress: true }).query).toEqual([["with", "delivery"]]);
    expect(endpoints.getCampaign("5001", { includeProgress: true }).query).toEqual([["with", "delivery"]]);
  });

  it("writes the contract number and created campaigns under its members; writes stay at the spec's paths", () => {
    const patch = endpoints.patchInsertionOrders([{ id: "1001", contract_number: "PO-1" }]);
    expect(patch).toEqual({
      method: "PATCH",
      path: "/api/dsp/v1/insertion_orders",
      body: { insertion_orders: [{ id: "1001", po_number: "PO-1" }] },
    });
    expect(endpoints.patchInsertionOrders([{ id: "1001", contract_number: null }]).body).toEqual({
      insertion_orders: [{ id: "1001", po_number: null }],
    });
    expect(endpoints.patchInsertionOrders([{ id: "1001", budget_impressions: 5 }]).body).toEqual({
      insertion_orders: [{ id: "1001", budget_impressions: 5 }],
    });
    const created = endpoints.createCampaigns([]);
    expect(created.body).toEqual({ items: [] });
    expect(createdItems(ALL, created.body)).toEqual([]);
    expect(createdItems(DEFAULT_DIALECT, created.body)).toBeUndefined();
    expect(endpoints.putTargetings("5001", []).path).toBe("/api/dsp/v1/campaigns/5001/targetings");
  });

  it("maps a moved read back to the contract's operation, and nothing else", () => {
    expect(contractPath(ALL, "GET", "/api/dsp/v1/orders")).toBe("/api/dsp/v1/insertion_orders");
    expect(contractPath(ALL, "GET", "/api/dsp/v1/orders/7")).toBe("/api/dsp/v1/insertion_orders/7");
    expect(contractPath(ALL, "GET", "/api/dsp/v1/orders/7/x")).toBe("/api/dsp/v1/orders/7/x");
    expect(contractPath(ALL, "GET", "/api/dsp/v1/targeting_sets/9")).toBe(
      "/api/dsp/v1/campaigns/9/targetings",
    );
    expect(contractPath(ALL, "PATCH", "/api/dsp/v1/orders")).toBe("/api/dsp/v1/orders");
    expect(contractPath(ALL, "GET", "/api/dsp/v1/campaigns/9")).toBe("/api/dsp/v1/campaigns/9");
    expect(contractPath(DEFAULT_DIALECT, "GET", "/api/dsp/v1/orders")).toBe("/api/dsp/v1/orders");
  });
});

describe("answers a dialect shapes", () => {
  it("reads the contract number from its member, and drops a member of the contract's name that means something else", () => {
    const body = read(ALL, endpointsFor(ALL).insertionOrders.request({}), {
      insertion_orders: [order({ po_number: "PO-9", contract_number: "internal-42" })],
      total_size: 1,
    }) as { insertion_orders: { contract_number: unknown }[] };
    expect(body.insertion_orders[0]?.contract_number).toBe("PO-9");
  });

  it("refuses an insertion order without the dialect's contract member: doohctl compares and writes it (G14)", () => {
    const request = endpointsFor(ALL).getInsertionOrder("1001");
    expect(() => read(ALL, request, order({ contract_number: "PO-9" }))).toThrow(ContractError);
  });

  it("reads progress from its member and inner names", () => {
    const request = endpointsFor(ALL).getCampaign("5001", { includeProgress: true });
    const delivery = { impressions: 250, cost: usd("3") };
    const body = read(ALL, request, { ...campaign("5001", { delivery }), targeting_sets: [] });
    expect(body).toMatchObject({ progress: { impressions_delivered: 250, spend: usd("3") } });
    expect(body).not.toHaveProperty("delivery");
  });

  it("takes each campaign's embedded targetings, judged as a targetings answer", () => {
    const sets = [{ venue_targeting_option: { venue_targeting_ids: ["v1"], exclude: true } }];
    const body = read(ALL, endpointsFor(ALL).campaigns.request({}), {
      campaigns: [campaign("5001", { targeting_sets: sets }), campaign("5002", { targeting_sets: [] })],
      total_size: 2,
    }) as { campaigns: { id: string; targetings: unknown }[] };
    expect(body.campaigns.map((c) => [c.id, c.targetings])).toEqual([
      ["5001", sets],
      ["5002", []],
    ]);
  });

  it.each([
    ["absent", {}],
    ["null", { targeting_sets: null }],
    ["malformed", { targeting_sets: [{ venue_targeting_option: { venue_targeting_ids: [] } }] }],
  ])(
    "refuses a campaign whose embedded targetings are %s: a plan would read them as none and write",
    (_, extra) => {
      const request = endpointsFor(ALL).campaigns.request({});
      const answer = { campaigns: [campaign("5001", extra)], total_size: 1 };
      expect(() => read(ALL, request, answer)).toThrow(/campaign 5001\/targeting_sets/);
    },
  );

  it("reads the targeting list and the created campaigns from their members", () => {
    const sets = [{ deal_targeting_option: { deal_ids: ["d1"] } }];
    expect(read(ALL, endpointsFor(ALL).getTargetings("5001"), { sets })).toEqual({ targetings: sets });
    const created = read(ALL, endpointsFor(ALL).createCampaigns([]), {
      items: [campaign("5003", { targeting_sets: [] })],
    }) as { campaigns: { id: string }[] };
    expect(created.campaigns.map((c) => c.id)).toEqual(["5003"]);
  });

  it.each(["toString", "valueOf", "hasOwnProperty"])(
    "reads a member named %s as the answer's own: missing when absent, never the function every object inherits",
    (name) => {
      const request = endpointsFor(dialectOf({ contract_number: name })).getInsertionOrder("1001");
      const dialect = dialectOf({ contract_number: name, campaign_targetings: "sets" });
      expect(read(dialect, request, order({ [name]: "PO-9" }))).toMatchObject({ contract_number: "PO-9" });
      expect(() => read(dialect, request, order({}))).toThrow(
        `at /${name} (connection.dialect: contract_number): a required member, missing`,
      );
      const embedded = dialectOf({ campaign_targetings: name });
      expect(() => read(embedded, endpointsFor(embedded).getCampaign("5001"), campaign("5001"))).toThrow(
        `campaign 5001/${name}: a required member`,
      );
      const created = dialectOf({ create_campaigns_member: name });
      expect(createdItems(created, {})).toBeUndefined();
      expect(createdItems(created, JSON.parse(`{"${name}": []}`))).toEqual([]);
    },
  );

  it("refuses __proto__ and constructor as member names: they reach every object's prototype", () => {
    for (const name of ["__proto__", "constructor"]) {
      expect(parseDialect({ contract_number: name })).toMatchObject({
        problems: [
          { key: "contract_number", message: expect.stringContaining("reach every object's prototype") },
        ],
      });
    }
  });

  it("without a dialect, reads as the gap decisions say", () => {
    const body = read(
      DEFAULT_DIALECT,
      endpointsFor().getCampaign("5001"),
      campaign("5001", { targeting_sets: [] }),
    );
    expect(body).not.toHaveProperty("targetings");
    expect(body).not.toHaveProperty("targeting_sets");
  });
});
