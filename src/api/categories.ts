/**
 * Creative categories by id as the spec names them: the list has no filter field (`filter=id:`
 * is a 422 on a strict DSP, G12), so one GET per id or the whole list, whichever is cheaper.
 * One id is one GET; more read the list's first page (its total, maybe all of them), then the
 * rest of the list or one GET per missing id: at most one request above the cheaper road.
 */
import { compareIds } from "../model/targeting.js";
import type { CreativeCategory } from "../model/wire.js";
import { MAX_PAGE_SIZE } from "../model/wire.js";
import { Endpoints } from "./endpoints.js";
import { ApiError } from "./errors.js";
import { firstPage, restPages, type Sender, wholeRead } from "./paging.js";
import type { SendOptions } from "./types.js";

async function byId(send: Sender, ids: readonly string[], options: SendOptions): Promise<CreativeCategory[]> {
  const found = await Promise.all(
    ids.map((id) =>
      send(Endpoints.getCreativeCategory(id), options).catch((error: unknown) => {
        // A category that does not exist is absent from the result, as in the batch readers.
        if (error instanceof ApiError && error.status === 404) return undefined;
        throw error;
      }),
    ),
  );
  return found.filter((c): c is CreativeCategory => c !== undefined);
}

/** The categories among `ids` that exist, once each, in ascending id order. */
export async function readCreativeCategories(
  send: Sender,
  ids: readonly string[],
  options: SendOptions = {},
): Promise<CreativeCategory[]> {
  const wanted = [...new Set(ids)];
  if (wanted.length <= 1) return byId(send, wanted, options);
  const first = await firstPage(send, Endpoints.creativeCategories, { options });
  const want = new Set(wanted);
  let found = first.items.filter((c) => want.has(c.id));
  const missing = wanted.filter((id) => !found.some((c) => c.id === id));
  const pagesLeft = Math.max(0, Math.ceil(first.total / MAX_PAGE_SIZE) - 1);
  if (missing.length > 0 && pagesLeft > 0) {
    if (pagesLeft <= missing.length) {
      const rest = await restPages(send, Endpoints.creativeCategories, { options, total: first.total });
      const all = wholeRead(first.request, [...first.items, ...rest], {
        list: Endpoints.creativeCategories.key,
        total: first.total,
      });
      found = all.filter((c) => want.has(c.id));
    } else {
      found = [...found, ...(await byId(send, missing, options))];
    }
  }
  const unique = new Map(found.map((c) => [c.id, c]));
  return [...unique.values()].sort((a, b) => compareIds(a.id, b.id));
}
