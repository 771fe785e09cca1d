/**
 * The client's batch reads (DspReaders), each built on `send` and the paging of paging.ts or
 * categories.ts: ids and filter values 100 a request, pages of 100.
 */
import { readCreativeCategories } from "./categories.js";
import { type CampaignListQuery, Endpoints } from "./endpoints.js";
import { readByValues, type Sender } from "./paging.js";
import type { DspReaders } from "./types.js";

export function dspReaders(send: Sender): DspReaders {
  return {
    getInsertionOrders: (ids, o) =>
      readByValues(send, Endpoints.insertionOrders, { field: "id", values: ids, options: o }),
    listCampaignsByInsertionOrder: (ids, { includeProgress, ...o } = {}) =>
      readByValues(send, Endpoints.campaigns, {
        field: "insertion_order_id",
        values: ids,
        query: includeProgress ? ({ includeProgress } as CampaignListQuery) : {},
        options: o,
      }),
    getCampaigns: (ids, o) =>
      readByValues(send, Endpoints.campaigns, { field: "id", values: ids, options: o }),
    getTargetings: async (campaignIds, o) => {
      const unique = [...new Set(campaignIds)];
      const lists = await Promise.all(unique.map((id) => send(Endpoints.getTargetings(id), o)));
      return new Map(unique.map((id, i) => [id, lists[i]?.targetings ?? []]));
    },
    getCreatives: (ids, o) =>
      readByValues(send, Endpoints.creatives, { field: "id", values: ids, options: o }),
    listCreativesByCampaign: (ids, o) =>
      readByValues(send, Endpoints.creatives, { field: "campaign_ids", values: ids, options: o }),
    getCreativeCategories: (ids, o) => readCreativeCategories(send, ids, o),
    getAdvertisers: (ids, o) =>
      readByValues(send, Endpoints.advertisers, { field: "id", values: ids, options: o }),
  };
}
