import { afterEach, describe, expect, it } from "vitest";
import { seedAccount, seedCampaignWith } from "../helpers/builders.js";
import { boot, DSP, login, type Session } from "./helpers.js";

let s: Session | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const ids = (items: { id: string }[]) => items.map((i) => i.id);

describe("paging (spec; G12)", () => {
  it("refuses a page above 100 with the spec's 422 shape", async () => {
    s = await boot();
    const reply = await s.get(`${DSP}/campaigns?page=101`);
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      message: "Invalid Request",
      data: [{ field: "page", messages: ["is not less than or equal to 100"] }],
    });
  });

  it("bounds page_size to 0..100 and page to non-negative integers", async () => {
    s = await boot();
    const big = await s.get(`${DSP}/campaigns?page_size=101`);
    expect(big.body.data).toEqual([{ field: "page_size", messages: ["is not less than or equal to 100"] }]);
    const negative = await s.get(`${DSP}/advertisers?page=-1&page_size=abc`);
    expect(negative.body.data).toEqual([
      { field: "page", messages: ["is not greater than or equal to 0"] },
      { field: "page_size", messages: ["must be an integer"] },
    ]);
    expect((await s.get(`${DSP}/campaigns?page=100&page_size=100`)).status).toBe(200);
  });

  it("answers page_size 0 and pages past the end with no items and the true total_size", async () => {
    s = await boot();
    expect((await s.get(`${DSP}/campaigns?page_size=0`)).body).toEqual({ campaigns: [], total_size: 3 });
    expect((await s.get(`${DSP}/campaigns?page=5`)).body).toEqual({ campaigns: [], total_size: 3 });
  });

  it("pages in ascending numeric id order by default, 25 a page", async () => {
    const many = Array.from({ length: 30 }, (_, i) =>
      seedCampaignWith({
        id: String(i === 0 ? 99 : 100 + i),
        insertion_order_id: "1002",
        budget_impressions: 1,
      }),
    );
    s = await boot({ seed: seedAccount({ campaigns: many, targetings: {}, creatives: [] }) });
    const first = await s.get(`${DSP}/campaigns`);
    expect(first.body.campaigns).toHaveLength(25);
    expect(first.body.campaigns[0].id).toBe("99");
    expect(first.body.campaigns[1].id).toBe("101");
    const second = await s.get(`${DSP}/campaigns?page=1`);
    expect(ids(second.body.campaigns)).toEqual(["125", "126", "127", "128", "129"]);
    expect(second.body.total_size).toBe(30);
  });
});

describe("filter, search and order (G1, G2, G6, G12)", () => {
  it("ORs repeated entries of one field and ANDs different fields", async () => {
    s = await boot();
    const or = await s.get(`${DSP}/campaigns?filter=id:5001&filter=id:5003`);
    expect(ids(or.body.campaigns)).toEqual(["5001", "5003"]);
    const and = await s.get(`${DSP}/campaigns?filter=id:5001&filter=id:5003&filter=insertion_order_id:1002`);
    expect(ids(and.body.campaigns)).toEqual(["5003"]);
    expect(and.body.total_size).toBe(1);
  });

  it("filters booleans written true or false, and in_flight by the emulator's clock", async () => {
    s = await boot();
    expect(ids((await s.get(`${DSP}/campaigns?filter=active:true`)).body.campaigns)).toEqual(["5001"]);
    expect((await s.get(`${DSP}/campaigns?filter=in_flight:true`)).body.total_size).toBe(0);
    s.clock.advance(Date.parse("2026-12-01T00:00:00Z") - s.clock.now() - 1);
    s.cookie = await login(s.emulator.origin);
    expect((await s.get(`${DSP}/campaigns?filter=in_flight:true`)).body.total_size).toBe(0);
    s.clock.advance(1);
    expect((await s.get(`${DSP}/campaigns?filter=in_flight:true`)).body.total_size).toBe(3);
    const bad = await s.get(`${DSP}/campaigns?filter=active:yes`);
    expect(bad.status).toBe(422);
    expect(bad.body.data).toEqual([{ field: "filter", messages: ["active takes true or false"] }]);
  });

  it("matches array fields by containment", async () => {
    s = await boot();
    const reply = await s.get(`${DSP}/creatives?filter=campaign_ids:5001`);
    expect(ids(reply.body.creatives)).toEqual(["9001"]);
    expect(
      (await s.get(`${DSP}/creatives?filter=insertion_order_ids:1001&filter=archived:false`)).body.total_size,
    ).toBe(1);
  });

  it("searches case-insensitively by substring", async () => {
    s = await boot();
    expect(ids((await s.get(`${DSP}/campaigns?search=name:AIR`)).body.campaigns)).toEqual(["5001"]);
    expect(ids((await s.get(`${DSP}/advertisers?search=name:con`)).body.advertisers)).toEqual(["2"]);
  });

  it("refuses unknown filter, search and order fields and malformed entries, naming each", async () => {
    s = await boot();
    const reply = await s.get(
      `${DSP}/campaigns?filter=colour:red&search=id:1&order=budget_impressions&filter=nocolon`,
    );
    expect(reply.status).toBe(422);
    expect(reply.body.data).toEqual([
      {
        field: "filter",
        messages: [
          "colour is not a filter field of this list: use one of id, insertion_order_id, in_flight, active",
          '"nocolon" must be field:value, like id:5001',
        ],
      },
      { field: "search", messages: ["id is not a search field of this list: use one of name"] },
      {
        field: "order",
        messages: [
          "budget_impressions is not an order field of this list: use one of id, name, start_time, end_time",
        ],
      },
    ]);
    const unknown = await s.get(`${DSP}/campaigns?colour=red`);
    expect(unknown.body.data).toEqual([{ field: "colour", messages: ["is not a known parameter"] }]);
  });

  it("orders descending unless asc=true, and breaks ties by ascending id either way", async () => {
    s = await boot();
    const desc = await s.get(`${DSP}/campaigns?order=start_time`);
    expect(ids(desc.body.campaigns)).toEqual(["5001", "5002", "5003"]);
    const byName = await s.get(`${DSP}/campaigns?order=name`);
    expect(ids(byName.body.campaigns)).toEqual(["5003", "5002", "5001"]);
    const asc = await s.get(`${DSP}/campaigns?order=name&asc=true`);
    expect(ids(asc.body.campaigns)).toEqual(["5001", "5002", "5003"]);
  });

  it("lists insertion orders, networks and creative categories in their envelopes", async () => {
    s = await boot();
    const orders = await s.get(`${DSP}/insertion_orders?filter=advertiser_id:2`);
    expect(orders.body).toMatchObject({ insertion_orders: [{ id: "1002" }], total_size: 1 });
    const networks = await s.get("/api/media_owner/v1/networks?order=name&asc=true");
    expect(networks.body).toEqual({
      networks: [
        { id: "2", name: "Airport Media" },
        { id: "1", name: "Metro Screens" },
      ],
      total_size: 2,
    });
    expect((await s.get(`${DSP}/creative_categories`)).body.total_size).toBe(2);
    expect((await s.get(`${DSP}/creative_categories/2`)).body).toEqual({ id: "2", name: "Travel" });
    expect((await s.get("/api/media_owner/v1/creative_categories/1")).body).toEqual({
      id: "1",
      name: "Beverages",
    });
  });
});

describe("list pages", () => {
  it("show each campaign exactly as a single GET does, in_flight included, after writes too", async () => {
    s = await boot({ at: "2026-12-15T00:00:00Z" });
    await s.call("PATCH", `${DSP}/campaigns/5002`, {
      end_time: "2026-12-10T00:00:00Z",
      pacing: { a: [1, "x"] },
    });
    const page = await s.get(`${DSP}/campaigns`);
    const singles = await Promise.all(
      page.body.campaigns.map((c: { id: string }) => s!.get(`${DSP}/campaigns/${c.id}`)),
    );
    expect(page.body.campaigns).toEqual(singles.map((r) => r.body));
    expect(page.body.campaigns.map((c: { in_flight: boolean }) => c.in_flight)).toEqual([true, false, true]);
  });
});

describe("progress (G2)", () => {
  it("adds deterministic progress only with include_progress=true", async () => {
    s = await boot({ at: "2026-12-16T12:00:00Z" });
    const plain = await s.get(`${DSP}/campaigns/5001`);
    expect(plain.body.progress).toBeUndefined();
    const withProgress = await s.get(`${DSP}/campaigns/5001?include_progress=true`);
    // Half the flight of an active campaign with a creative, at its pace of 93.6% of linear
    // (fixed by its id): 46.8% of its 300,000 impressions, at 12.50 USD cpm.
    expect(withProgress.body.progress).toEqual({
      impressions_delivered: 140_400,
      spend: { currency_code: "USD", units: "1755", nanos: 0 },
    });
    const inactive = await s.get(`${DSP}/campaigns/5002?include_progress=true`);
    expect(inactive.body.progress.impressions_delivered).toBe(0);
  });
});
