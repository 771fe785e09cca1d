/**
 * Creative categories are read only in ways the specification names (G12: `GET
 * /creative_categories` names no filter field): one GET per id, or the unfiltered list
 * paged at 100, whichever costs fewer requests.
 */
import { afterEach, describe, expect, it } from "vitest";
import { seedWithCampaigns } from "../helpers/builders.js";
import { type EmulatorWorld, emulatorWorld } from "../helpers/world.js";

const LIST = "/api/dsp/v1/creative_categories";
let h: EmulatorWorld;
afterEach(() => h.close());

async function withCategories(count: number): Promise<EmulatorWorld> {
  const seed = {
    ...seedWithCampaigns(0),
    creative_categories: Array.from({ length: count }, (_, i) => ({
      id: String(i + 1),
      name: `Category ${i + 1}`,
    })),
  };
  h = await emulatorWorld({ seed: seed as never, emulator: { rateLimits: "off" } });
  return h;
}

function categoryReads() {
  return h.emulator.requestLog().filter((e) => e.path.startsWith(LIST));
}

describe("reading creative categories by id", () => {
  it("reads one id with one GET of /creative_categories/{id}; one that does not exist is absent", async () => {
    await withCategories(5);
    expect(await h.client.getCreativeCategories(["3"])).toEqual([{ id: "3", name: "Category 3" }]);
    expect(await h.client.getCreativeCategories(["99"])).toEqual([]);
    expect(categoryReads().map((e) => `${e.path} ${e.status}`)).toEqual([`${LIST}/3 200`, `${LIST}/99 404`]);
  });

  it("reads several ids with one unfiltered page when the list is short", async () => {
    await withCategories(40);
    const found = await h.client.getCreativeCategories(["7", "2", "99", "2"]);
    expect(found.map((c) => c.id)).toEqual(["2", "7"]);
    expect(categoryReads().map((e) => `${e.path}?${e.query}`)).toEqual([`${LIST}?page_size=100&page=0`]);
  });

  it("after the first page, fetches the few ids still missing one by one rather than every page", async () => {
    await withCategories(350);
    const found = await h.client.getCreativeCategories(["5", "250", "340"]);
    expect(found.map((c) => c.id)).toEqual(["5", "250", "340"]);
    // 1 page + 2 GETs, not 4 pages
    expect(categoryReads().map((e) => e.path)).toEqual([LIST, `${LIST}/250`, `${LIST}/340`]);
  });

  it("after the first page, reads the remaining pages when that is fewer requests than one per id", async () => {
    await withCategories(350);
    const ids = ["150", "160", "170", "250", "340", "345"];
    expect((await h.client.getCreativeCategories(ids)).map((c) => c.id)).toEqual(ids);
    expect(categoryReads()).toHaveLength(4);
  });

  it("never sends a filter, search or order to the list (G12)", async () => {
    await withCategories(350);
    await h.client.getCreativeCategories(["1", "2", "300"]);
    await h.client.getCreativeCategories(["150", "160", "170", "250", "340", "345"]);
    for (const entry of categoryReads()) expect(entry.query).not.toMatch(/filter|search|order/);
  });
});
