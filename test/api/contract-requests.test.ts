/**
 * The client sends only what the contract names: every request `Endpoints` can build, with
 * representative arguments, is checked (method, path, query, body) against
 * schemas/dsp-api.openapi.json.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { findOperation } from "../../src/api/contract.js";
import { Endpoints } from "../../src/api/endpoints.js";
import type { ApiRequest } from "../../src/api/types.js";
import { campaignCreate } from "../helpers/builders.js";
import { checkRequest, checkSchema } from "../helpers/contract-check.js";

const usd = { currency_code: "USD", units: "12", nanos: 500000000 };
const sets = [
  {
    venue_type_targeting_option: { venue_type_ids: ["12"], exclude: false },
    publisher_targeting_option: { publisher_ids: ["77"], exclude: true },
    venue_targeting_option: { venue_targeting_ids: ["v1"] },
    deal_targeting_option: { deal_ids: ["d1"] },
  },
];

/** Every builder of `Endpoints`, each with representative arguments. */
const requests: Record<keyof typeof Endpoints, ApiRequest[]> = {
  createSession: [Endpoints.createSession({ email: "a@b.test", password: "pw" })],
  insertionOrders: [
    Endpoints.insertionOrders.request({}),
    Endpoints.insertionOrders.request({
      filter: { id: ["1001", "1002"], advertiser_id: ["1"] },
      search: { name: ["winter"] },
      order: "start_time",
      asc: true,
      page: 100,
      pageSize: 100,
    }),
  ],
  getInsertionOrder: [Endpoints.getInsertionOrder("1001")],
  patchInsertionOrders: [
    Endpoints.patchInsertionOrders([
      { id: "1001", contract_number: "PO-1", budget_money: usd, budget_impressions: null },
      {
        id: "1002",
        start_time: "2026-12-01T00:00:00Z",
        end_time: "2027-01-01T00:00:00Z",
        budget_money: null,
      },
    ]),
  ],
  campaigns: [
    Endpoints.campaigns.request({
      filter: { id: ["5001"], insertion_order_id: ["1001"], in_flight: [true], active: [false] },
      search: { name: ["mall"] },
      order: "end_time",
      asc: false,
      page: 0,
      pageSize: 0,
      includeProgress: true,
    }),
  ],
  getCampaign: [Endpoints.getCampaign("5001"), Endpoints.getCampaign("5001", { includeProgress: true })],
  createCampaigns: [
    Endpoints.createCampaigns([
      campaignCreate({ name: "Malls", cpm: usd, pacing: { strategy: "even" }, active: false }),
    ]),
  ],
  patchCampaigns: [
    Endpoints.patchCampaigns([{ id: "5001", active: true, cpm: usd, pacing: {}, budget_impressions: 0 }]),
  ],
  getTargetings: [Endpoints.getTargetings("5001")],
  putTargetings: [Endpoints.putTargetings("5001", sets), Endpoints.putTargetings("5001", [])],
  advertisers: [
    Endpoints.advertisers.request({ filter: { id: ["1"] }, search: { name: ["acme"] }, pageSize: 100 }),
  ],
  creativeCategories: [Endpoints.creativeCategories.request({ page: 3, pageSize: 100 })],
  getCreativeCategory: [Endpoints.getCreativeCategory("3")],
  creatives: [
    Endpoints.creatives.request({
      filter: {
        id: ["9001"],
        advertiser_id: ["1"],
        campaign_ids: ["5001"],
        insertion_order_ids: ["1001"],
        archived: [false],
        type: ["IMAGE"],
        processing_status: ["PROCESSED"],
      },
      search: { name: ["spot"] },
      order: "create_time",
      pageSize: 100,
    }),
  ],
  patchCreatives: [
    Endpoints.patchCreatives([
      {
        id: "9001",
        campaign_ids: ["5001"],
        category_ids: [],
        insertion_order_ids: ["1001"],
        pixel_url: "https://p",
      },
    ]),
  ],
};

describe("every request the client can build is one the contract names", () => {
  it("covers every builder of Endpoints", () => {
    expect(Object.keys(requests).sort()).toEqual(Object.keys(Endpoints).sort());
  });

  for (const [builder, built] of Object.entries(requests)) {
    it(`${builder}: method, path, query and body match the contract`, () => {
      for (const request of built) expect(checkRequest(request), JSON.stringify(request)).toEqual([]);
    });
  }
});

describe("the request check refuses what the contract does not name", () => {
  it.each<[string, ApiRequest, string]>([
    [
      "a filter field the operation does not name (G12)",
      { method: "GET", path: "/api/dsp/v1/creative_categories", query: [["filter", "id:3"]] },
      "?filter",
    ],
    [
      "an order field the operation does not name",
      { method: "GET", path: "/api/dsp/v1/campaigns", query: [["order", "budget_impressions"]] },
      "?order",
    ],
    [
      "a page above 100 (G12)",
      { method: "GET", path: "/api/dsp/v1/campaigns", query: [["page", "101"]] },
      "?page",
    ],
    [
      "an unknown property in a batch item (G4)",
      { method: "PATCH", path: "/api/dsp/v1/campaigns", body: { campaigns: [{ id: "1", colour: "red" }] } },
      "/campaigns/0/colour",
    ],
    [
      "a read-only property in a patch (G2)",
      { method: "PATCH", path: "/api/dsp/v1/campaigns/1", body: { name: "x" } },
      "/name",
    ],
    [
      "an empty batch (G4)",
      { method: "PATCH", path: "/api/dsp/v1/creatives", body: { creatives: [] } },
      "/creatives",
    ],
    ["a method the path does not have", { method: "DELETE", path: "/api/dsp/v1/campaigns/1" }, "DELETE"],
    [
      "a time with another offset (G12)",
      { method: "PATCH", path: "/api/dsp/v1/campaigns/1", body: { start_time: "2026-12-01T00:00:00+01:00" } },
      "/start_time",
    ],
  ])("%s", (_what, request, at) => {
    const issues = checkRequest(request);
    expect(issues.map((i) => i.at).join(" ")).toContain(at);
  });
});

describe("the contract document", () => {
  const doc = JSON.parse(
    readFileSync(new URL("../../schemas/dsp-api.openapi.json", import.meta.url), "utf8"),
  );
  const operations = Object.entries(
    doc.paths as Record<string, Record<string, Record<string, unknown>>>,
  ).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));

  it("is OpenAPI 3.1 with the two session cookies as security schemes", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.components.securitySchemes).toEqual({
      "tr-production": expect.objectContaining({ type: "apiKey", in: "cookie", name: "tr-production" }),
      "tr-staging": expect.objectContaining({ type: "apiKey", in: "cookie", name: "tr-staging" }),
    });
  });

  it("compiles every schema it names (every $ref resolves)", () => {
    for (const name of Object.keys(doc.components.schemas))
      expect(() => checkSchema(name, null), name).not.toThrow();
  });

  it("gives every operation an id, its security, and the spec's error statuses with the error shape", () => {
    for (const { path, method, op } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.operationId, where).toEqual(expect.any(String));
      expect(op.security, where).toBeDefined();
      expect(Object.keys(op.responses as object), where).toEqual(
        expect.arrayContaining(["400", "401", "403", "404", "422", "429"]),
      );
    }
    expect(operations).toHaveLength(27);
  });

  it("answers every list with its envelope: one array named after the resource and total_size", () => {
    for (const { path, method, op } of operations) {
      const params = (op.parameters ?? []) as Array<{ $ref?: string }>;
      if (method !== "get" || !params.some((p) => p.$ref === "#/components/parameters/page")) continue;
      const found = findOperation("GET", path.replace(/\{[^}]+\}/g, "1"));
      const schema = doc.components.schemas[found?.responseSchema ?? ""];
      expect(schema.required, path).toContain("total_size");
      expect(schema.required, path).toHaveLength(2);
    }
  });
});
