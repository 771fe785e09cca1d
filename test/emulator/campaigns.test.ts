import { afterEach, describe, expect, it } from "vitest";
import { campaignCreate } from "../helpers/builders.js";
import { boot, DSP, fields, type Session } from "./helpers.js";

let s: Session | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const usd = (units: string, nanos?: number) => ({
  currency_code: "USD",
  units,
  ...(nanos === undefined ? {} : { nanos }),
});
/** A create item, `fields` written as sent (a wrong value too). */
const newCampaign = (fields: Record<string, unknown> = {}) => ({
  ...campaignCreate({ name: "Stadiums" }),
  cpm: usd("9"),
  ...fields,
});

describe("campaign creation (G3)", () => {
  it("creates campaigns in request order with new ids, inactive and with empty pacing by default", async () => {
    s = await boot();
    const reply = await s.call("POST", `${DSP}/campaigns`, {
      campaigns: [newCampaign(), newCampaign({ name: "Arenas", active: true, pacing: { strategy: "asap" } })],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.campaigns).toEqual([
      {
        id: "5004",
        insertion_order_id: "1001",
        name: "Stadiums",
        active: false,
        in_flight: false,
        start_time: "2026-12-01T00:00:00Z",
        end_time: "2027-01-01T00:00:00Z",
        budget_impressions: 1000,
        cpm: { currency_code: "USD", units: "9", nanos: 0 },
        pacing: {},
      },
      expect.objectContaining({ id: "5005", name: "Arenas", active: true, pacing: { strategy: "asap" } }),
    ]);
    expect(s.emulator.state().campaigns).toHaveLength(5);
  });

  it("creates nothing when one item is invalid, and lists every failing field with its index", async () => {
    s = await boot();
    const reply = await s.call("POST", `${DSP}/campaigns`, {
      campaigns: [
        newCampaign(),
        newCampaign({ insertion_order_id: "7777", cpm: usd("-1") }),
        newCampaign({
          name: undefined,
          colour: "red",
          in_flight: true,
          start_time: "2026-12-01T01:00:00+01:00",
        }),
      ],
    });
    expect(reply.status).toBe(422);
    expect(fields(reply)).toEqual({
      "campaigns[1].insertion_order_id": ["does not exist"],
      "campaigns[1].cpm": ["must not be negative"],
      "campaigns[2].colour": ["is not a known property"],
      "campaigns[2].in_flight": ["is read-only"],
      "campaigns[2].name": ["is required"],
      "campaigns[2].start_time": ["must be in UTC (a Z or +00:00 suffix)"],
    });
    expect(s.emulator.state().campaigns).toHaveLength(3);
  });

  it("refuses a campaign outside its insertion order's flight or over its budget (G8)", async () => {
    s = await boot();
    const reply = await s.call("POST", `${DSP}/campaigns`, {
      campaigns: [
        newCampaign({ start_time: "2026-11-30T00:00:00Z", end_time: "2027-04-01T00:00:00Z" }),
        newCampaign({ budget_impressions: 499_001 }),
        newCampaign({ cpm: { currency_code: "EUR", units: "9" } }),
        newCampaign({ start_time: "2027-01-01T00:00:00Z", end_time: "2027-01-01T00:00:00Z" }),
      ],
    });
    expect(fields(reply)).toEqual({
      "campaigns[0].start_time": ["must not be before insertion order 1001 starts (2026-12-01T00:00:00Z)"],
      "campaigns[0].end_time": ["must not be after insertion order 1001 ends (2027-03-01T00:00:00Z)"],
      "campaigns[0].budget_impressions": [
        "campaigns of insertion order 1001 would hold 1002001 impressions, above its budget_impressions of 1000000",
      ],
      "campaigns[1].budget_impressions": [
        "campaigns of insertion order 1001 would hold 1002001 impressions, above its budget_impressions of 1000000",
      ],
      "campaigns[2].cpm": ["currency must be USD, the currency of insertion order 1001's budget_money"],
      "campaigns[2].budget_impressions": [
        "campaigns of insertion order 1001 would hold 1002001 impressions, above its budget_impressions of 1000000",
      ],
      "campaigns[3].end_time": ["must be after start_time"],
      "campaigns[3].budget_impressions": [
        "campaigns of insertion order 1001 would hold 1002001 impressions, above its budget_impressions of 1000000",
      ],
    });
  });

  it("refuses an empty batch and one over 100 items (G4)", async () => {
    s = await boot();
    for (const campaigns of [[], Array.from({ length: 101 }, () => newCampaign({ budget_impressions: 1 }))]) {
      const reply = await s.call("POST", `${DSP}/campaigns`, { campaigns });
      expect(reply.body).toEqual({
        message: "Invalid Request",
        data: [{ field: "campaigns", messages: ["must contain between 1 and 100 items"] }],
      });
    }
  });
});

describe("campaign updates (spec; G4)", () => {
  it("changes only the properties sent and answers the campaigns in request order", async () => {
    s = await boot();
    const reply = await s.call("PATCH", `${DSP}/campaigns`, {
      campaigns: [
        { id: "5002", active: true, cpm: usd("13", 250_000_000) },
        { id: "5001", pacing: { strategy: "asap" } },
      ],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.campaigns.map((c: { id: string }) => c.id)).toEqual(["5002", "5001"]);
    expect(reply.body.campaigns[0]).toMatchObject({
      active: true,
      cpm: usd("13", 250_000_000),
      name: "Malls",
    });
    expect(reply.body.campaigns[1]).toMatchObject({
      active: true,
      pacing: { strategy: "asap" },
      budget_impressions: 300_000,
    });
  });

  it("applies nothing when one item is bad, and names missing, duplicated, unknown and read-only fields", async () => {
    s = await boot();
    const before = s.emulator.state();
    const reply = await s.call("PATCH", `${DSP}/campaigns`, {
      campaigns: [
        { id: "5001", active: false },
        { id: "4242", active: true },
        { id: "5001", budget_impressions: 1 },
        { id: "5002", name: "Renamed", in_flight: true, colour: "blue", budget_impressions: -5 },
        { active: true },
      ],
    });
    expect(reply.status).toBe(422);
    expect(fields(reply)).toEqual({
      "campaigns[1].id": ["does not exist"],
      "campaigns[2].id": ["is duplicated in the request"],
      "campaigns[4].id": ["is required"],
      "campaigns[3].name": ["is read-only"],
      "campaigns[3].in_flight": ["is read-only"],
      "campaigns[3].colour": ["is not a known property"],
      "campaigns[3].budget_impressions": ["must be a non-negative integer"],
    });
    expect(s.emulator.state()).toEqual(before);
  });

  it("validates a batch on the state it would produce, so budget can move between campaigns (G8)", async () => {
    s = await boot();
    // 1001 holds 500,000 of 1,000,000; 5001 grows by 600,000 only because 5002 gives up 200,000.
    const alone = await s.call("PATCH", `${DSP}/campaigns/5001`, { budget_impressions: 900_000 });
    expect(alone.status).toBe(422);
    expect(fields(alone)).toEqual({
      budget_impressions: [
        "campaigns of insertion order 1001 would hold 1100000 impressions, above its budget_impressions of 1000000",
      ],
    });
    const together = await s.call("PATCH", `${DSP}/campaigns`, {
      campaigns: [
        { id: "5001", budget_impressions: 900_000 },
        { id: "5002", budget_impressions: 100_000 },
      ],
    });
    expect(together.status).toBe(200);
  });

  it("answers 404 for a single campaign that does not exist and 422 for a bad body", async () => {
    s = await boot();
    expect((await s.call("PATCH", `${DSP}/campaigns/4242`, { active: true })).status).toBe(404);
    expect((await s.get(`${DSP}/campaigns/4242`)).body).toEqual({ message: "Not Found" });
    const reply = await s.call("PATCH", `${DSP}/campaigns/5001`, {
      end_time: "2026-11-30T00:00:00Z",
      id: "5002",
    });
    expect(fields(reply)).toEqual({
      id: ["is read-only"],
      end_time: ["must be after start_time"],
    });
  });
});

describe("insertion orders (G1; G8)", () => {
  it("patches contract number and budget, single and batch", async () => {
    s = await boot();
    const one = await s.call("PATCH", `${DSP}/insertion_orders/1001`, { contract_number: "PO-7781" });
    expect(one.body).toMatchObject({ id: "1001", contract_number: "PO-7781", name: "Winter push" });
    const batch = await s.call("PATCH", `${DSP}/insertion_orders`, {
      insertion_orders: [{ id: "1002", budget_impressions: 60_000, budget_money: usd("100") }],
    });
    expect(batch.body.insertion_orders[0]).toMatchObject({
      budget_impressions: 60_000,
      budget_money: usd("100", 0),
    });
  });

  it("refuses a patch that narrows the flight or budget below its campaigns", async () => {
    s = await boot();
    const before = s.emulator.state();
    const reply = await s.call("PATCH", `${DSP}/insertion_orders`, {
      insertion_orders: [
        {
          id: "1001",
          start_time: "2026-12-02T00:00:00Z",
          end_time: "2026-12-31T00:00:00Z",
          budget_impressions: 400_000,
        },
        { id: "1002", budget_money: { currency_code: "EUR", units: "5" }, name: "x" },
      ],
    });
    expect(reply.status).toBe(422);
    expect(fields(reply)).toEqual({
      "insertion_orders[0].start_time": [
        "would leave campaigns 5001, 5002 starting before the insertion order",
      ],
      "insertion_orders[0].end_time": ["would leave campaigns 5001, 5002 ending after the insertion order"],
      "insertion_orders[0].budget_impressions": ["is below the 500000 impressions its campaigns hold"],
      "insertion_orders[1].name": ["is read-only"],
      "insertion_orders[1].budget_money": ["currency must match the cpm currency of campaign 5003"],
    });
    expect(s.emulator.state()).toEqual(before);
  });
});
