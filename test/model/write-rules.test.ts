import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkRules } from "../../src/config/rules.js";
import { checkInsertionOrder } from "../../src/emulator/rules.js";
import type { CampaignRecord } from "../../src/emulator/store.js";
import { Money } from "../../src/model/money.js";
import type { Campaign, InsertionOrder } from "../../src/model/wire.js";
import { type WriteRuleBreach, WriteRules } from "../../src/model/write-rules.js";
import { simulate } from "../../src/plan/findings/simulate.js";
import { LiveIndex } from "../../src/plan/live-index.js";
import type { PlannedRequest } from "../../src/plan/types.js";
import { desiredCampaign, desiredIo, desiredState, liveCampaign, liveIo } from "../helpers/builders.js";

/**
 * The client's G8 rules (src/model/write-rules.ts) against the emulator's own
 * (src/emulator/rules.ts), the client's test oracle: on random insertion orders and campaigns
 * they accept and refuse the same states, for the same rules on the same objects and fields.
 */

/** Instants around the edges of the flights below, some equal in other forms (G14: exact to the nanosecond). */
const TIMES = [
  "2026-11-30T23:59:59.999999999Z",
  "2026-12-01T00:00:00Z",
  "2026-12-01T01:00:00+01:00",
  "2026-12-01T00:00:00.000000001Z",
  "2026-12-15T00:00:00Z",
  "2027-01-01T00:00:00.000Z",
  "2027-03-01T00:00:00Z",
  "2027-03-01T00:00:00.5Z",
];
const anyTime = fc.constantFrom(...TIMES);
/** Mostly `usual`, sometimes any instant: states the DSP accepts are common enough to test both ways. */
const mostly = (...usual: string[]) =>
  fc.oneof({ arbitrary: fc.constantFrom(...usual), weight: 4 }, { arbitrary: anyTime, weight: 1 });
const currency = fc.oneof(
  { arbitrary: fc.constant("USD"), weight: 4 },
  { arbitrary: fc.constant("EUR"), weight: 1 },
);

const insertionOrder = fc.record({
  start_time: mostly("2026-12-01T00:00:00Z", "2026-12-01T00:00:00.000000001Z"),
  end_time: mostly("2027-03-01T00:00:00Z", "2027-03-01T00:00:00.5Z"),
  budget_impressions: fc.option(fc.integer({ min: 0, max: 500 }), { nil: null }),
  budget_money: fc.option(
    currency.map((c) => Money.parse(`100 ${c}`)),
    { nil: null },
  ),
});

const campaign = fc.record({
  start_time: mostly("2026-12-01T01:00:00+01:00", "2026-12-01T00:00:00.000000001Z", "2026-12-15T00:00:00Z"),
  end_time: mostly("2027-01-01T00:00:00.000Z", "2027-03-01T00:00:00Z"),
  budget_impressions: fc.integer({ min: 0, max: 120 }),
  cpm: currency.map((c) => Money.parse(`12 ${c}`)),
  active: fc.boolean(),
});

/** An insertion order with up to four campaigns, as the DSP would hold them. */
const state = fc
  .record({ io: insertionOrder, campaigns: fc.array(campaign, { maxLength: 4 }) })
  .map(({ io, campaigns }) => ({
    io: liveIo(io),
    campaigns: campaigns.map((c, i) => liveCampaign({ ...c, id: `500${i}`, name: `Campaign ${i}` })),
  }));

interface Judged {
  subject: "insertion_order" | "campaign";
  id: string;
  rule: WriteRuleBreach["rule"];
  field: string;
}

/** The field the emulator names for a breach (G8: a 422 naming the field). */
function fieldOf(breach: WriteRuleBreach): string {
  switch (breach.rule) {
    case "flight_order":
      return "end_time";
    case "within_flight":
      return breach.field;
    case "budget_sum":
      return "budget_impressions";
    case "currency":
      return "cpm";
  }
}

function byModel(io: InsertionOrder, campaigns: readonly Campaign[]): Judged[] {
  const sum = campaigns.reduce((n, c) => n + c.budget_impressions, 0);
  const judged = (subject: Judged["subject"], id: string, breaches: readonly WriteRuleBreach[]) =>
    breaches.map((b) => ({ subject, id, rule: b.rule, field: fieldOf(b) }));
  return [
    ...judged("insertion_order", io.id, WriteRules.insertionOrder(io, sum)),
    ...campaigns.flatMap((c) => judged("campaign", c.id, WriteRules.campaign(c, io))),
  ];
}

function byEmulator(io: InsertionOrder, campaigns: readonly Campaign[]): Judged[] {
  const records: CampaignRecord[] = campaigns.map(({ in_flight: _, progress: __, ...record }) => record);
  return checkInsertionOrder(io, records).map((v) => ({
    subject: v.subject,
    id: v.id,
    rule: v.rule,
    field: v.field,
  }));
}

const sorted = (judged: Judged[]) => judged.map((j) => `${j.subject} ${j.id} ${j.rule} ${j.field}`).sort();

describe("G8: the client's rules agree with the emulator's", () => {
  it("on which states are refused, by which rule, for which object and field", () => {
    fc.assert(
      fc.property(state, ({ io, campaigns }) => {
        expect(sorted(byModel(io, campaigns))).toEqual(sorted(byEmulator(io, campaigns)));
      }),
      { numRuns: 500 },
    );
  });

  it("validate (config/rules.ts) refuses a fully declared state exactly when the emulator does, by the same rules", () => {
    const codes: Record<string, WriteRuleBreach["rule"]> = {
      FLIGHT_ORDER: "flight_order",
      FLIGHT_OUTSIDE_INSERTION_ORDER: "within_flight",
      BUDGET_OVER_INSERTION_ORDER: "budget_sum",
      CURRENCY_MISMATCH: "currency",
    };
    fc.assert(
      fc.property(state, ({ io, campaigns }) => {
        const desired = desiredState([
          desiredIo(io.id, {
            line: "next",
            fields: {
              start_time: io.start_time,
              end_time: io.end_time,
              budget_impressions: io.budget_impressions,
              budget_money: io.budget_money,
            },
            campaigns: campaigns.map((c) =>
              desiredCampaign(c.name, {
                fields: {
                  start_time: c.start_time,
                  end_time: c.end_time,
                  budget_impressions: c.budget_impressions,
                  cpm: c.cpm,
                },
              }),
            ),
          }),
        ]);
        const rules = checkRules(desired, []).map((issue) => codes[issue.code] ?? issue.code);
        expect(rules.sort()).toEqual(
          byEmulator(io, campaigns)
            .map((j) => j.rule)
            .sort(),
        );
      }),
      { numRuns: 300 },
    );
  });

  it("validate refuses a partly declared state only when the DSP would refuse every state that declares as much", () => {
    const declared = fc.array(fc.boolean(), { minLength: 4 * 5, maxLength: 4 * 5 });
    /** The fields of `all` whose flag is set, as a config that leaves the others out declares them. */
    const some = <T extends object>(all: T, flags: boolean[]): Partial<T> =>
      Object.fromEntries(Object.entries(all).filter((_, i) => flags[i])) as Partial<T>;
    fc.assert(
      fc.property(state, declared, ({ io, campaigns }, flags) => {
        const desired = desiredState([
          desiredIo(io.id, {
            line: "next",
            fields: some(
              {
                start_time: io.start_time,
                end_time: io.end_time,
                budget_impressions: io.budget_impressions,
                budget_money: io.budget_money,
              },
              flags.slice(0, 4),
            ),
            campaigns: campaigns.map((c, i) =>
              desiredCampaign(c.name, {
                fields: some(
                  {
                    start_time: c.start_time,
                    end_time: c.end_time,
                    budget_impressions: c.budget_impressions,
                    cpm: c.cpm,
                  },
                  flags.slice(4 * (i + 1), 4 * (i + 2)),
                ),
              }),
            ),
          }),
        ]);
        // The live state is one state that declares as much: the undeclared values are its own.
        if (checkRules(desired, []).length > 0) expect(byEmulator(io, campaigns)).not.toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it("the plan's simulation (plan/simulate.ts) refuses a write of every campaign exactly when the emulator would", () => {
    fc.assert(
      fc.property(state, ({ io, campaigns }) => {
        const live = LiveIndex.of({ insertionOrders: [io], campaigns, creatives: [] });
        // A PATCH that sends every campaign as it is: the state it produces is the state itself.
        const write = {
          seq: 1,
          phase: 3,
          method: "PATCH",
          path: "/campaigns",
          body: { campaigns: campaigns.map((c) => ({ id: c.id, budget_impressions: c.budget_impressions })) },
          items: campaigns.length,
          change_ids: [],
          item_change_ids: campaigns.map(() => []),
          description: "",
        } as unknown as PlannedRequest;
        const findings = simulate({ live, targetings: {}, requests: campaigns.length > 0 ? [write] : [] });
        const refused = campaigns.length > 0 && byEmulator(io, campaigns).length > 0;
        expect(findings.length > 0).toBe(refused);
        for (const f of findings) expect(f.code).toBe("DOOH701");
      }),
      { numRuns: 300 },
    );
  });
});
