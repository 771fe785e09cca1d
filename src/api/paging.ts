/**
 * Lists in as few requests as the API allows: pages of 100 until `total_size` is reached, and
 * batch reads of 100 `filter` values a request. G12 bounds `page` to 0..100 (10,100 items a
 * query); a batch read that needs more splits its values.
 *
 * A list that shifts between two pages repeats one item and misses another while the counts
 * agree, so within one query a repeated id, or distinct ids short of `total_size`, is an
 * IncompleteReadError. Across a batch's queries an item may come twice, and is merged.
 */
import { compareIds } from "../model/targeting.js";
import { MAX_PAGE, MAX_PAGE_SIZE } from "../model/wire.js";
import type { ListEndpoint, ListQuery, ListResponse } from "./endpoints.js";
import { ContractError, IncompleteReadError, PagingLimitError } from "./errors.js";
import type { ApiRequest, SendOptions } from "./types.js";

export type Sender = <T>(
  request: ApiRequest & { readonly __response?: T },
  options?: SendOptions,
) => Promise<T>;

/** G12: the most items one query can reach. */
export const MAX_QUERY_ITEMS = (MAX_PAGE + 1) * MAX_PAGE_SIZE;
/** Spec: repeated filter values per request, so one request of ids fits one page. */
export const VALUES_PER_REQUEST = MAX_PAGE_SIZE;

function pagesFor(total: number): number {
  return Math.max(1, Math.ceil(total / MAX_PAGE_SIZE));
}

/**
 * The items of one page, once they agree with `total_size` (spec, List envelope): page p holds
 * exactly min(100, total - 100p), and every page says the same total; else a short page would
 * read as the list's end.
 */
function pageItems<Key extends string, T>(
  request: ApiRequest,
  body: ListResponse<Key, T>,
  {
    key,
    page,
    firstTotal,
    firstId,
  }: { key: Key; page: number; firstTotal?: number | undefined; firstId?: unknown },
): T[] {
  const items = body[key] as T[];
  const total = body.total_size;
  const id = (items[0] as { id?: unknown } | undefined)?.id;
  if (page > 0 && firstId !== undefined && id === firstId) throw pageIgnored(request, page);
  const expected = Math.min(MAX_PAGE_SIZE, Math.max(0, total - page * MAX_PAGE_SIZE));
  if (firstTotal !== undefined && total !== firstTotal) {
    throw new ContractError(request.method, request.path, [
      {
        at: "/total_size",
        expected: `${firstTotal}, as page 0 of this read said (page ${page} says ${total}): the list changed while it was read; run again`,
      },
    ]);
  }
  if (items.length !== expected) {
    // More than a page holds: a DSP that ignores page_size (G12), which no dialect key adapts.
    const ignored =
      items.length > MAX_PAGE_SIZE
        ? `, more than page_size=${MAX_PAGE_SIZE}: the DSP ignores page_size (G12)`
        : "";
    throw new ContractError(request.method, request.path, [
      {
        at: `/${key}`,
        expected: `${expected} items on page ${page} of ${MAX_PAGE_SIZE} per page, as total_size ${total} says; got ${items.length}${ignored}`,
      },
    ]);
  }
  return items;
}

/** G12: a later page starting with page 0's first item: the DSP ignores `page` (said so, not "run again"). */
function pageIgnored(request: ApiRequest, page: number): ContractError {
  return new ContractError(request.method, request.path, [
    {
      at: "?page",
      expected: `page ${page} to follow page 0, but it answered page 0's items again: the DSP ignores the page parameter (G12), which no dialect key adapts, so doohctl cannot read a list of more than ${MAX_PAGE_SIZE} items there. Tell the DSP's operator (doohctl doctor names it)`,
    },
  ]);
}

const firstIdOf = (items: readonly unknown[]) => (items[0] as { id?: unknown } | undefined)?.id;

/** Names a read for its error: the list and, when filtered, on what (a few values shown). */
function listName(key: string, filter?: { field: string; values: readonly string[] }): string {
  if (filter === undefined) return key;
  const shown = filter.values.slice(0, 3).join(", ");
  const more = filter.values.length > 3 ? ` and ${filter.values.length - 3} more` : "";
  return `${key} (filter ${filter.field}: ${shown}${more})`;
}

/** The first id among `items` already in `seen`, adding the others to it as it goes. */
function repeatedId(items: readonly unknown[], seen: Set<string>): string | undefined {
  for (const item of items) {
    const id = (item as { id?: unknown } | null)?.id;
    if (typeof id !== "string") continue;
    if (seen.has(id)) return id;
    seen.add(id);
  }
  return undefined;
}

const twice = (id: string, total: number) => `id ${id} came twice among its ${total} items (total_size)`;

/** The items of one query once each id comes once and they add up to `total`; else an IncompleteReadError. */
export function wholeRead<T>(
  request: ApiRequest,
  items: readonly T[],
  { list, total }: { list: string; total: number },
): T[] {
  const seen = new Set<string>();
  const repeated = repeatedId(items, seen);
  if (repeated !== undefined) {
    throw new IncompleteReadError(request.method, request.path, list, twice(repeated, total));
  }
  if (seen.size !== total) {
    throw new IncompleteReadError(
      request.method,
      request.path,
      list,
      `${seen.size} distinct ids where total_size says ${total}`,
    );
  }
  return [...items];
}

function tooMany(path: string, total: number): PagingLimitError {
  return new PagingLimitError(
    `${path} matches ${total} items, more than the ${MAX_QUERY_ITEMS} one query can page through ` +
      `(G12: page 0..${MAX_PAGE}); narrow it with filters`,
  );
}

/** What one read of a list asks: the filters, search and order of every page, and how to send. */
export interface PageRead<Field extends string> {
  query?: ListQuery<Field> | undefined;
  options?: SendOptions | undefined;
}

/** Every item of a list: after the first page, the rest are requested at once. */
export async function listAll<Key extends string, T, Field extends string>(
  send: Sender,
  endpoint: ListEndpoint<Key, T, Field>,
  read: PageRead<Field> = {},
): Promise<T[]> {
  const first = await firstPage(send, endpoint, read);
  if (first.total > MAX_QUERY_ITEMS) throw tooMany(first.path, first.total);
  const rest = await restPages(send, endpoint, {
    ...read,
    total: first.total,
    firstId: firstIdOf(first.items),
  });
  return wholeRead(first.request, [...first.items, ...rest], { list: endpoint.key, total: first.total });
}

export async function firstPage<Key extends string, T, Field extends string>(
  send: Sender,
  endpoint: ListEndpoint<Key, T, Field>,
  { query = {}, options = {} }: PageRead<Field>,
): Promise<{ items: T[]; total: number; path: string; request: ApiRequest }> {
  const request = endpoint.request({ ...query, page: 0, pageSize: MAX_PAGE_SIZE });
  const body = await send(request, options);
  return {
    items: pageItems(request, body, { key: endpoint.key, page: 0 }),
    total: body.total_size,
    path: request.path,
    request,
  };
}

/** Pages 1 and on of a query whose first page said `total`, requested together. */
export async function restPages<Key extends string, T, Field extends string>(
  send: Sender,
  endpoint: ListEndpoint<Key, T, Field>,
  { query = {}, options = {}, total, firstId }: PageRead<Field> & { total: number; firstId?: unknown },
): Promise<T[]> {
  const pages: Promise<T[]>[] = [];
  for (let page = 1; page < pagesFor(total); page++) {
    const request = endpoint.request({ ...query, page, pageSize: MAX_PAGE_SIZE });
    pages.push(
      send(request, options).then((body) =>
        pageItems(request, body, { key: endpoint.key, page, firstTotal: total, firstId }),
      ),
    );
  }
  return (await Promise.all(pages)).flat();
}

export interface ValuesRead<Field extends string> extends PageRead<Field> {
  /** The filter field the values are matched on. */
  field: Field;
  values: readonly string[];
}

/**
 * Every item whose `field` matches one of `values`, 100 values a request, chunks in flight
 * together. A chunk matching more than one query can page (G12) is halved until it fits; one
 * value still too many is a PagingLimitError. Items come once each, in ascending id order.
 */
export async function readByValues<Key extends string, T extends { id: string }, Field extends string>(
  send: Sender,
  endpoint: ListEndpoint<Key, T, Field>,
  { field, values, query = {}, options = {} }: ValuesRead<Field>,
): Promise<T[]> {
  const unique = [...new Set(values)];
  const chunks: string[][] = [];
  for (let i = 0; i < unique.length; i += VALUES_PER_REQUEST) {
    chunks.push(unique.slice(i, i + VALUES_PER_REQUEST));
  }
  const read = async (chunk: string[]): Promise<T[]> => {
    const chunkQuery = { ...query, filter: { ...query.filter, [field]: chunk } } as ListQuery<Field>;
    const first = await firstPage(send, endpoint, { query: chunkQuery, options });
    if (first.total > MAX_QUERY_ITEMS) {
      if (chunk.length === 1) throw tooMany(`${first.path} (${field} ${chunk[0]})`, first.total);
      const half = Math.ceil(chunk.length / 2);
      return (await Promise.all([read(chunk.slice(0, half)), read(chunk.slice(half))])).flat();
    }
    const firstId = firstIdOf(first.items);
    const rest = await restPages(send, endpoint, { query: chunkQuery, options, total: first.total, firstId });
    const list = listName(endpoint.key, { field, values: chunk });
    return wholeRead(first.request, [...first.items, ...rest], { list, total: first.total });
  };
  // Across queries an item may come twice (a creative matching two chunks of campaign_ids).
  const byId = new Map<string, T>();
  for (const item of (await Promise.all(chunks.map(read))).flat()) byId.set(item.id, item);
  return [...byId.values()].sort((a, b) => compareIds(a.id, b.id));
}
