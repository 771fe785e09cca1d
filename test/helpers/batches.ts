/**
 * A batch of any size written in chunks of at most 100 items (spec, Limits), one
 * transactional request each, in order, through `client.send`: what a library user does with
 * a list longer than one request takes. A failure stops at its chunk: a ChunkFailed says
 * where that chunk starts in the caller's list, with the client's error as its `cause`.
 */
import type { DspClient, TypedRequest } from "../../src/api/types.js";
import { MAX_BATCH } from "../../src/model/wire.js";

export class ChunkFailed extends Error {
  constructor(
    readonly offset: number,
    override readonly cause: unknown,
  ) {
    super(`the chunk at ${offset} failed`);
  }
}

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
      throw new ChunkFailed(offset, error);
    }
  }
  return out;
}
