import { describe, expect, it } from "vitest";
import { Endpoints } from "../../src/api/endpoints.js";
import { pathWithQuery } from "../../src/api/transport.js";
import { campaignCreate } from "../helpers/builders.js";

const money = { currency_code: "USD", units: "12", nanos: 500_000_000 };

describe("Endpoints", () => {
  it("builds list requests with repeated filter entries, search, order and paging (spec, G12)", () => {
    const request = Endpoints.campaigns.request({
      filter: { insertion_order_id: ["1001", "1002"], active: [true] },
      search: { name: ["air"] },
      order: "name",
      asc: true,
      page: 2,
      pageSize: 100,
      includeProgress: true,
    });
    expect(request).toEqual({
      method: "GET",
      path: "/api/dsp/v1/campaigns",
      query: [
        ["page_size", "100"],
        ["page", "2"],
        ["filter", "insertion_order_id:1001"],
        ["filter", "insertion_order_id:1002"],
        ["filter", "active:true"],
        ["search", "name:air"],
        ["order", "name"],
        ["asc", "true"],
        ["include_progress", "true"],
      ],
    });
    expect(pathWithQuery(request.path, request.query)).toBe(
      "/api/dsp/v1/campaigns?page_size=100&page=2&filter=insertion_order_id%3A1001&filter=insertion_order_id%3A1002" +
        "&filter=active%3Atrue&search=name%3Aair&order=name&asc=true&include_progress=true",
    );
  });

  it("names batch bodies after the resource (G3, G4, G6)", () => {
    expect(Endpoints.patchCampaigns([{ id: "5001", active: false }])).toEqual({
      method: "PATCH",
      path: "/api/dsp/v1/campaigns",
      body: { campaigns: [{ id: "5001", active: false }] },
    });
    expect(Endpoints.patchInsertionOrders([{ id: "1001", contract_number: "PO-1" }]).body).toEqual({
      insertion_orders: [{ id: "1001", contract_number: "PO-1" }],
    });
    expect(Endpoints.patchCreatives([{ id: "9001", campaign_ids: ["5001"] }]).body).toEqual({
      creatives: [{ id: "9001", campaign_ids: ["5001"] }],
    });
    const create = campaignCreate({ name: "Airports", cpm: money });
    expect(Endpoints.createCampaigns([create])).toEqual({
      method: "POST",
      path: "/api/dsp/v1/campaigns",
      body: { campaigns: [create] },
    });
  });

  it("puts targetings on the campaign's own path (spec, G5)", () => {
    const sets = [{ venue_type_targeting_option: { venue_type_ids: ["12"] } }];
    expect(Endpoints.putTargetings("5001", sets)).toEqual({
      method: "PUT",
      path: "/api/dsp/v1/campaigns/5001/targetings",
      body: { targetings: sets },
    });
    expect(Endpoints.getTargetings("5001")).toEqual({
      method: "GET",
      path: "/api/dsp/v1/campaigns/5001/targetings",
    });
  });

  it("escapes ids in path segments", () => {
    expect(Endpoints.getCampaign("a/b").path).toBe("/api/dsp/v1/campaigns/a%2Fb");
  });

  it("keeps builders pure: the same input gives equal, serializable requests", () => {
    const a = Endpoints.patchCampaigns([{ id: "5001", cpm: money }]);
    const b = Endpoints.patchCampaigns([{ id: "5001", cpm: money }]);
    expect(a).toEqual(b);
    expect(JSON.parse(JSON.stringify(a))).toEqual(a);
  });
});
