/**
 * A batch of any size written in chunks of at most 100 items (spec, Limits), one
 * transactional request each, in order, through `client.send`: what a library user does with
 * a list longer than one request takes. A failure stops at its chunk and says, as the error's
 * `batchOffset`, where that chunk starts in the caller's list.
 */
import { ApiError } from "../../src/api/errors.js";
import type { DspClient, TypedRequest } from "../../src/api/types.js";
import { MAX_BATCH } from "../../src/model/wire.js";

export async function sendInChunks<I, O, R>(
  client: DspClient,
  {
    items,
    build,
    pick,
  }: { items: readonly I[]; build: (chunk: I[]) => TypedRequest<O>; pick: (answer: O) => R[] },
): Promise<R[]> {
  const out: R[] = [];
  for (let offset = 0; offset < items.length; offset += MAX_BATCH) {
    const chunk = items.slice(offset, offset + MAX_BATCH);
    try {
      out.push(...pick(await client.send(build(chunk))));
    } catch (error) {
      throw error instanceof ApiError ? error.withBatchOffset(offset) : error;
    }
  }
  return out;
}
