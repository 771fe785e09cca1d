/** The client's batch reads (DspReaders, types.ts) on `send` and paging.ts, from the dialect's endpoints. */
import { type Dialect, dialectKeysHint } from "../model/dialect.js";
import type { TargetingOptionSet } from "../model/targeting.js";
import { readCreativeCategories } from "./categories.js";
import type { CampaignListQuery, DspEndpoints } from "./endpoints.js";
import { ContractError } from "./errors.js";
import { readByValues, type Sender } from "./paging.js";
import type { DspReaders } from "./types.js";

/** G2: what places progress, should a DSP answer none for the parameter asked. */
const PROGRESS_KEYS = ["progress.parameter", "progress.member"];

export function dspReaders(send: Sender, endpoints: DspEndpoints, dialect: Dialect): DspReaders {
  const getCampaigns: DspReaders["getCampaigns"] = (ids, o) =>
    readByValues(send, endpoints.campaigns, { field: "id", values: ids, options: o });
  return {
    getInsertionOrders: (ids, o) =>
      readByValues(send, endpoints.insertionOrders, { field: "id", values: ids, options: o }),
    listCampaignsByInsertionOrder: async (ids, { includeProgress, ...o } = {}) => {
      const campaigns = await readByValues(send, endpoints.campaigns, {
        field: "insertion_order_id",
        values: ids,
        query: includeProgress ? ({ includeProgress } as CampaignListQuery) : {},
        options: o,
      });
      // G2, G14: progress decides DOOH801/DOOH802; a DSP leaving it out would turn them off silently.
      const without = includeProgress ? campaigns.filter((c) => c.progress === undefined) : [];
      if (without.length > 0) {
        throw new ContractError(
          "GET",
          endpoints.campaigns.request({}).path,
          without.map((c) => ({
            at: `campaign ${c.id}/${dialect.progress.member}`,
            expected: `a required member with ${dialect.progress.parameter} (G2), missing`,
            hint: dialectKeysHint(PROGRESS_KEYS),
          })),
        );
      }
      return campaigns;
    },
    getCampaigns,
    getTargetings: async (campaignIds, o) => {
      const unique = [...new Set(campaignIds)];
      if (dialect.campaign_targetings !== null) {
        // G5 with `campaign_targetings`: the campaigns' answers hold them (answer.ts checks each).
        const campaigns = await getCampaigns(unique, o);
        return new Map(campaigns.map((c) => [c.id, c.targetings as TargetingOptionSet[]]));
      }
      const lists = await Promise.all(unique.map((id) => send(endpoints.getTargetings(id), o)));
      return new Map(unique.map((id, i) => [id, lists[i]?.targetings ?? []]));
    },
    getCreatives: (ids, o) =>
      readByValues(send, endpoints.creatives, { field: "id", values: ids, options: o }),
    listCreativesByCampaign: (ids, o) =>
      readByValues(send, endpoints.creatives, { field: "campaign_ids", values: ids, options: o }),
    getCreativeCategories: (ids, o) => readCreativeCategories(send, ids, o),
    getAdvertisers: (ids, o) =>
      readByValues(send, endpoints.advertisers, { field: "id", values: ids, options: o }),
  };
}
