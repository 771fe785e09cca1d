/**
 * The client's batch reads (the DspReaders of types.ts), each built on `send` and the paging
 * of paging.ts or categories.ts: ids and filter values 100 a request, pages of 100.
 */
import { readCreativeCategories } from "./categories.js";
import { type CampaignListQuery, Endpoints } from "./endpoints.js";
import { ContractError } from "./errors.js";
import { readByValues, type Sender } from "./paging.js";
import type { DspReaders } from "./types.js";

export function dspReaders(send: Sender): DspReaders {
  return {
    getInsertionOrders: (ids, o) =>
      readByValues(send, Endpoints.insertionOrders, { field: "id", values: ids, options: o }),
    listCampaignsByInsertionOrder: async (ids, { includeProgress, ...o } = {}) => {
      const campaigns = await readByValues(send, Endpoints.campaigns, {
        field: "insertion_order_id",
        values: ids,
        query: includeProgress ? ({ includeProgress } as CampaignListQuery) : {},
        options: o,
      });
      // G2, G14: progress decides DOOH801/DOOH802 when asked for; a DSP that leaves it out would
      // silently turn those checks off.
      const without = includeProgress ? campaigns.filter((c) => c.progress === undefined) : [];
      if (without.length > 0) {
        throw new ContractError(
          "GET",
          Endpoints.campaigns.request({}).path,
          without.map((c) => ({
            at: `campaign ${c.id}/progress`,
            expected: "a required member with include_progress=true (G2), missing",
          })),
        );
      }
      return campaigns;
    },
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
