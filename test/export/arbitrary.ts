/**
 * Small random live states, as emulator seeds the service could be in: G8 holds (flights
 * nested, campaign budgets within the insertion order's, cpm in its currency), creatives are
 * associated only within their advertiser (G6), and names include what YAML likes to
 * misread (`yes`, `null`, `123`, `# not a comment`, leading spaces, colons).
 */
import fc from "fast-check";
import type {
  EmulatorSeed,
  SeedCampaign,
  SeedCreative,
  SeedInsertionOrder,
} from "../../src/emulator/index.js";
import type { TargetingOptionSet } from "../../src/model/targeting.js";
import { campaignMembers } from "../helpers/builders.js";
import { optionSet as targetingOptionSet } from "../helpers/targeting-arbitrary.js";
import { USER } from "../helpers/users.js";

const NAMES = [
  "Airports",
  "Malls",
  "yes",
  "null",
  "123",
  "# not a comment",
  "Spring: 50% off",
  " leading space",
  "Ünïcödé screens",
  'Quote "this"',
  "multi\nline",
];
const DAY = 86_400_000;
const BASE = Date.UTC(2027, 0, 1);

const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

const money = (currency: string) =>
  fc.record({
    currency_code: fc.constant(currency),
    units: fc.integer({ min: 0, max: 40 }).map(String),
    nanos: fc.oneof(fc.constant(0), fc.constant(500_000_000), fc.integer({ min: 0, max: 999_999_999 })),
  });

const ids = (prefix: string) =>
  fc
    .uniqueArray(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 3 })
    .map((n) => n.map((i) => `${prefix}${i}`));
// Ids YAML could misread as numbers (`301`) and ids it could not (`D-1`); numeric kinds' are numbers (G5).
const optionSet = targetingOptionSet({
  ids: (kind) => (kind.ids.of === "numeric" ? ids("") : fc.constantFrom("D-", "30", "7").chain(ids)),
});

interface IoShape {
  advertiser: "1" | "2";
  startDay: number;
  days: number;
  budget: number | null;
  currency: "USD" | "EUR" | null;
  contract: string | null;
  campaigns: {
    name: string;
    active: boolean;
    offset: number;
    length: number;
    budget: number;
    cpm: { currency_code: string; units: string; nanos: number };
    pacing: Record<string, unknown> | undefined;
    targetings: TargetingOptionSet[] | undefined;
  }[];
}

const ioShape: fc.Arbitrary<IoShape> = fc
  .record({
    advertiser: fc.constantFrom("1" as const, "2" as const),
    startDay: fc.integer({ min: 0, max: 200 }),
    days: fc.integer({ min: 2, max: 120 }),
    budget: fc.option(fc.integer({ min: 100_000, max: 5_000_000 }), { nil: null }),
    currency: fc.constantFrom("USD" as const, "EUR" as const, null),
    contract: fc.option(fc.constantFrom("PO-1", "PO 7781/B", "'quoted'"), { nil: null }),
  })
  .chain(
    (io) =>
      fc.record({
        ...Object.fromEntries(Object.entries(io).map(([k, v]) => [k, fc.constant(v)])),
        campaigns: fc.array(
          fc.record({
            name: fc.constantFrom(...NAMES),
            active: fc.boolean(),
            offset: fc.integer({ min: 0, max: io.days - 2 }),
            length: fc.integer({ min: 1, max: io.days }),
            budget: fc.integer({ min: 0, max: 200_000 }),
            cpm: money(io.currency ?? "USD"),
            pacing: fc.option(
              fc.constantFrom(
                {},
                { strategy: "even" },
                { strategy: "asap", cap: { daily: 3 } },
                { "<<": "a key, not a merge" },
              ),
              {
                nil: undefined,
              },
            ),
            targetings: fc.option(fc.array(optionSet, { maxLength: 2 }), { nil: undefined }),
          }),
          { maxLength: 4 },
        ),
      }) as fc.Arbitrary<IoShape>,
  );

/** A seed of 1 to 3 insertion orders and up to 4 campaigns each, with creatives. */
export const liveSeed: fc.Arbitrary<EmulatorSeed> = fc
  .record({
    ios: fc.array(ioShape, { minLength: 1, maxLength: 3 }),
    creatives: fc.array(
      fc.record({
        advertiser: fc.constantFrom("1", "2"),
        picks: fc.array(fc.nat(), { maxLength: 3 }),
        categories: fc.subarray(["1", "2", "3"]),
        pixel: fc.constantFrom(
          "",
          "https://pixel.example.com/p?c=1&x=%20",
          // Ad-server macros, filled in at serve time: exported, and valid to validate.
          "https://pixel.example.com/p?cb={cachebuster}&t=[timestamp]&r=%%CB%%",
          "https:///p",
          "not a url",
          "ftp://pixel.example.com/p",
        ),
        archived: fc.boolean(),
      }),
      { maxLength: 4 },
    ),
  })
  .map(({ ios, creatives }) => {
    const insertion_orders: SeedInsertionOrder[] = [];
    const campaigns: SeedCampaign[] = [];
    const targetings: Record<string, TargetingOptionSet[]> = {};
    ios.forEach((io, i) => {
      const id = String(1001 + i);
      const start = BASE + io.startDay * DAY;
      const end = start + io.days * DAY;
      // G8: the campaigns' budgets fit in the insertion order's.
      const budget =
        io.budget === null
          ? null
          : Math.max(
              io.budget,
              io.campaigns.reduce((n, c) => n + c.budget, 0),
            );
      insertion_orders.push({
        id,
        advertiser_id: io.advertiser,
        name: `Order ${id}`,
        contract_number: io.contract,
        start_time: iso(start),
        end_time: iso(end),
        budget_impressions: budget,
        budget_money: io.currency === null ? null : { currency_code: io.currency, units: "10000", nanos: 0 },
      });
      io.campaigns.forEach((c, j) => {
        const campaignId = String(5000 + i * 10 + j);
        const cStart = start + c.offset * DAY;
        campaigns.push(
          campaignMembers({
            id: campaignId,
            insertion_order_id: id,
            name: c.name,
            active: c.active,
            start_time: iso(cStart),
            end_time: iso(Math.min(end, cStart + c.length * DAY)),
            budget_impressions: c.budget,
            cpm: c.cpm,
            ...(c.pacing === undefined ? {} : { pacing: c.pacing }),
          }),
        );
        if (c.targetings !== undefined) targetings[campaignId] = c.targetings;
      });
    });
    const seedCreatives: SeedCreative[] = creatives.map((c, k) => {
      // G6 rule 2: only campaigns whose insertion order has the creative's advertiser.
      const eligible = campaigns.filter(
        (campaign) =>
          insertion_orders.find((io) => io.id === campaign.insertion_order_id)?.advertiser_id ===
          c.advertiser,
      );
      const campaignIds =
        eligible.length === 0 ? [] : [...new Set(c.picks.map((p) => eligible[p % eligible.length]!.id))];
      const ioIds = [
        ...new Set(campaignIds.map((id) => campaigns.find((x) => x.id === id)!.insertion_order_id)),
      ];
      return {
        id: String(9001 + k),
        advertiser_id: c.advertiser,
        name: `Creative ${k}`,
        create_time: "2026-10-01T00:00:00Z",
        campaign_ids: campaignIds,
        insertion_order_ids: ioIds,
        category_ids: c.categories,
        pixel_url: c.pixel,
        archived: c.archived,
        type: "IMAGE",
        processing_status: "PROCESSED",
      };
    });
    return {
      users: [USER],
      advertisers: [
        { id: "1", name: "Northwind: Beverages" },
        { id: "2", name: "Contoso Travel" },
      ],
      creative_categories: [
        { id: "1", name: "Beverages" },
        { id: "2", name: "Travel" },
        { id: "3", name: "Seasonal" },
      ],
      insertion_orders,
      campaigns,
      targetings,
      creatives: seedCreatives,
    };
  });
