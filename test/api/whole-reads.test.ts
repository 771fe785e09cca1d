/**
 * At the paging layer: one query whose pages repeat an id is an
 * IncompleteReadError naming the list, in every reader of paging.ts (and the category list
 * of categories.ts); an item that comes in two queries of one batch read is legitimate (a
 * creative matching two chunks of campaign_ids) and merged. A fake Sender serves the pages.
 */
import { describe, expect, it } from "vitest";
import { readCreativeCategories } from "../../src/api/categories.js";
import { Endpoints } from "../../src/api/endpoints.js";
import { IncompleteReadError } from "../../src/api/errors.js";
import { listAll, readByValues, type Sender } from "../../src/api/paging.js";
import type { ApiRequest } from "../../src/api/types.js";

const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => String(from + i));

/** Serves `items` of `key` in pages of 100; `shift` moves page 1 back by one (its first item repeats page 0's last). */
function sender(
  key: string,
  items: string[],
  { shift = false } = {},
): { send: Sender; requests: ApiRequest[] } {
  const requests: ApiRequest[] = [];
  const send = (async (request: ApiRequest) => {
    requests.push(request);
    const page = Number(request.query?.find(([k]) => k === "page")?.[1] ?? 0);
    const count = Math.min(100, items.length - page * 100);
    const start = page * 100 - (shift && page === 1 ? 1 : 0);
    const slice = items.slice(start, start + count).map((id) => ({ id, name: `n${id}` }));
    return { [key]: slice, total_size: items.length };
  }) as Sender;
  return { send, requests };
}

async function failure(promise: Promise<unknown>): Promise<IncompleteReadError> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(IncompleteReadError);
  return error as IncompleteReadError;
}

describe("a query whose pages repeat an id", () => {
  it("listAll: IncompleteReadError naming the list and the id, with what to do", async () => {
    const { send } = sender("insertion_orders", ids(1001, 150), { shift: true });
    const error = await failure(listAll(send, Endpoints.insertionOrders));
    expect(error.code).toBe("INCOMPLETE_READ");
    expect(error.list).toBe("insertion_orders");
    expect(error.message).toBe(
      "GET /api/dsp/v1/insertion_orders: the read of insertion_orders is incomplete: id 1100 came twice " +
        "among its 150 items (total_size). The DSP's list shifted while it was read (an item created or " +
        "deleted meanwhile), so an item may be missing; doohctl stopped before any write. Run again " +
        "later, once no other tool is changing this account",
    );
  });

  it("listAll: names the id that the shifted page repeats", async () => {
    const { send } = sender("campaigns", ids(5001, 150), { shift: true });
    const error = await failure(listAll(send, Endpoints.campaigns));
    expect(error.detail).toBe("id 5100 came twice among its 150 items (total_size)");
  });

  it("readByValues: names the list and its filter", async () => {
    const { send } = sender("campaigns", ids(5001, 150), { shift: true });
    const values = ["1001", "1002", "1003", "1004"];
    const error = await failure(
      readByValues(send, Endpoints.campaigns, { field: "insertion_order_id", values }),
    );
    expect(error.list).toBe("campaigns (filter insertion_order_id: 1001, 1002, 1003 and 1 more)");
  });

  it("creative categories read whole: the same", async () => {
    const { send } = sender("creative_categories", ids(1, 150), { shift: true });
    const error = await failure(readCreativeCategories(send, ["1", "150"]));
    expect(error.list).toBe("creative_categories");
  });

  it("pages that do not shift read whole, in every reader", async () => {
    const { send } = sender("campaigns", ids(5001, 150));
    expect(await listAll(send, Endpoints.campaigns)).toHaveLength(150);
    const { send: categories } = sender("creative_categories", ids(1, 150));
    expect((await readCreativeCategories(categories, ["1", "150"])).map((c) => c.id)).toEqual(["1", "150"]);
  });
});

describe("an item in two queries of one batch read", () => {
  it("is merged, once, in id order (a creative matching two chunks of campaign_ids)", async () => {
    // Every chunk's query answers the same one creative: 150 values make two queries.
    const send = (async () => ({ creatives: [{ id: "9001" }], total_size: 1 })) as Sender;
    const creatives = await readByValues(send, Endpoints.creatives, {
      field: "campaign_ids",
      values: ids(5001, 150),
    });
    expect(creatives.map((c) => c.id)).toEqual(["9001"]);
  });
});
