import { afterEach, describe, expect, it } from "vitest";
import { Endpoints } from "../../src/api/endpoints.js";
import { ApiError, ContractError, PagingLimitError } from "../../src/api/errors.js";
import { listAll } from "../../src/api/paging.js";
import type { EmulatorSeed } from "../../src/emulator/index.js";
import { ChunkFailed, sendInChunks } from "../helpers/batches.js";
import { seedWithCampaigns } from "../helpers/builders.js";
import { quirky } from "../helpers/quirks.js";
import { type EmulatorWorld, emulatorWorld } from "../helpers/world.js";
import { CAMPAIGNS_PATH } from "./harness.js";

let h: EmulatorWorld | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ids = (n: number) => Array.from({ length: n }, (_, i) => String(5001 + i));

describe("paging and batch reads: exact request counts", () => {
  it("reads campaigns with progress on the same pages when asked (G2), and without it otherwise", async () => {
    h = await emulatorWorld({ seed: seedWithCampaigns(150), emulator: { rateLimits: "off" } });
    const plain = await h.client.listCampaignsByInsertionOrder(["1001"]);
    expect(plain.some((c) => "progress" in c)).toBe(false);
    expect(h.seen("GET", CAMPAIGNS_PATH)).toBe(2);
    const withProgress = await h.client.listCampaignsByInsertionOrder(["1001"], { includeProgress: true });
    expect(withProgress.map((c) => c.id)).toEqual(ids(150));
    expect(withProgress.every((c) => typeof c.progress?.impressions_delivered === "number")).toBe(true);
    expect(h.seen("GET", CAMPAIGNS_PATH)).toBe(4);
  });

  for (const [count, listRequests, idRequests] of [
    [0, 1, 0],
    [1, 1, 1],
    [100, 1, 1],
    [101, 2, 2],
    [1000, 10, 10],
  ] as const) {
    it(`reads ${count} campaigns of an insertion order in ${listRequests} request(s), and by id in ${idRequests}`, async () => {
      h = await emulatorWorld({ seed: seedWithCampaigns(count), emulator: { rateLimits: "off" } });
      const listed = await h.client.listCampaignsByInsertionOrder(["1001"]);
      expect(listed.map((c) => c.id)).toEqual(ids(count));
      expect(h.seen("GET", CAMPAIGNS_PATH)).toBe(listRequests);

      const byId = await h.client.getCampaigns(ids(count));
      expect(byId.map((c) => c.id)).toEqual(ids(count));
      expect(h.seen("GET", CAMPAIGNS_PATH)).toBe(listRequests + idRequests);
    });
  }

  it("asks for 100 items a page and 100 repeated id filters a request", async () => {
    h = await emulatorWorld({ seed: seedWithCampaigns(150), emulator: { rateLimits: "off" } });
    await h.client.getCampaigns(ids(150));
    const queries = h.emulator
      .requestLog()
      .filter((e) => e.path === CAMPAIGNS_PATH)
      .map((e) => new URLSearchParams(e.query));
    expect(queries.map((q) => q.get("page_size"))).toEqual(["100", "100"]);
    expect(queries.map((q) => q.getAll("filter").length).sort()).toEqual([100, 50]);
  });

  it("reads a filtered list page by page in id order", async () => {
    h = await emulatorWorld({ seed: seedWithCampaigns(230), emulator: { rateLimits: "off" } });
    const all = await listAll(h.client.send, Endpoints.campaigns, { query: { filter: { active: [false] } } });
    expect(all.map((c) => c.id)).toEqual(ids(230));
    expect(h.seen("GET", CAMPAIGNS_PATH)).toBe(3);
  });

  it("lists a whole resource with several pages in flight", async () => {
    h = await emulatorWorld({ seed: seedWithCampaigns(450), emulator: { rateLimits: "off" } });
    const all = await listAll(h.client.send, Endpoints.campaigns);
    expect(all).toHaveLength(450);
    expect(h.seen("GET", CAMPAIGNS_PATH)).toBe(5);
  });

  it("returns missing ids as absent, not as an error", async () => {
    h = await emulatorWorld({ seed: seedWithCampaigns(2), emulator: { rateLimits: "off" } });
    expect((await h.client.getCampaigns(["5002", "9999"])).map((c) => c.id)).toEqual(["5002"]);
  });
});

describe("G12: a query reaches at most 101 pages", () => {
  /** Insertion orders 1001 and 1002 with the given numbers of campaigns. */
  function twoInsertionOrders(first: number, second: number): EmulatorSeed {
    const seed = seedWithCampaigns(first + second);
    const io = seed.insertion_orders[0]!;
    seed.insertion_orders.push({ ...io, id: "1002", name: "Spring 2027" });
    for (const campaign of seed.campaigns.slice(first)) campaign.insertion_order_id = "1002";
    return seed as EmulatorSeed;
  }

  it("splits the filter values of a batch read whose matches exceed 10,100 items", async () => {
    h = await emulatorWorld({ seed: twoInsertionOrders(6_000, 5_000), emulator: { rateLimits: "off" } });
    const campaigns = await h.client.listCampaignsByInsertionOrder(["1001", "1002"]);
    expect(campaigns).toHaveLength(11_000);
    // One probe of both, then each insertion order on its own: 60 and 50 pages.
    expect(h.seen("GET", CAMPAIGNS_PATH)).toBe(1 + 60 + 50);
  });

  it("refuses, with a way out, a single filter value that matches more than 10,100 items", async () => {
    h = await emulatorWorld({ seed: seedWithCampaigns(10_101), emulator: { rateLimits: "off" } });
    const error = await h.client.listCampaignsByInsertionOrder(["1001"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PagingLimitError);
    expect((error as Error).message).toMatch(/10101 items, more than the 10100 .* narrow it with filters/);
  });
});

describe("G12: a DSP that ignores the paging parameters", () => {
  it("that ignores page is named as such, not as a list that shifted: no run later helps", async () => {
    h = await emulatorWorld({ seed: seedWithCampaigns(150), emulator: { rateLimits: "off" } });
    h = await h.behind(quirky(["page-ignored"]));
    const error = await h.client.listCampaignsByInsertionOrder(["1001"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractError);
    expect((error as Error).message).toContain(
      "page 1 to follow page 0, but it answered page 0's items again: the DSP ignores the page parameter (G12), which no dialect key adapts",
    );
    expect((error as Error).message).not.toMatch(/run again later/i);
  });
});

describe("batch writes", () => {
  it("splits 250 updates into 3 transactional requests of at most 100 items, in order", async () => {
    h = await emulatorWorld({ seed: seedWithCampaigns(250), emulator: { rateLimits: "off" } });
    const updated = await sendInChunks(h.client, {
      items: ids(250).map((id) => ({ id, budget_impressions: 7 })),
      build: Endpoints.patchCampaigns,
      pick: (answer) => answer.campaigns,
    });
    expect(updated.map((c) => c.id)).toEqual(ids(250));
    const sizes = h.emulator
      .requestLog()
      .filter((e) => e.method === "PATCH")
      .map((e) => (e.body as { campaigns: unknown[] }).campaigns.length);
    expect(sizes).toEqual([100, 100, 50]);
  });

  it("keeps the 422 field list intact and says where the failing chunk starts", async () => {
    h = await emulatorWorld({ seed: seedWithCampaigns(150), emulator: { rateLimits: "off" } });
    const items = ids(150).map((id) => ({ id, budget_impressions: 5 }));
    items[120] = { id: "9999", budget_impressions: 5 };
    const error = await sendInChunks(h.client, {
      items,
      build: Endpoints.patchCampaigns,
      pick: (answer) => answer.campaigns,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChunkFailed);
    expect((error as ChunkFailed).offset).toBe(100);
    const apiError = (error as ChunkFailed).cause as ApiError;
    expect(apiError).toBeInstanceOf(ApiError);
    expect(apiError.status).toBe(422);
    expect(apiError.data).toEqual([{ field: "campaigns[20].id", messages: ["does not exist"] }]);
    expect(apiError.method).toBe("PATCH");
    expect(apiError.path).toBe(CAMPAIGNS_PATH);
    expect(apiError.message).toContain("campaigns[20].id does not exist");
  });
});
