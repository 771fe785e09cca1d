import { afterEach, describe, expect, it } from "vitest";
import { boot, DSP, fields, type Session } from "./helpers.js";

let s: Session | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const venueTypes = { venue_type_targeting_option: { venue_type_ids: ["12", "14"] } };
const publishers = { publisher_targeting_option: { publisher_ids: ["77"], exclude: true } };

describe("targetings (G5)", () => {
  it("answers an empty list for a campaign never given targetings, and 404 for no campaign", async () => {
    s = await boot();
    expect((await s.get(`${DSP}/campaigns/5002/targetings`)).body).toEqual({ targetings: [] });
    expect((await s.get(`${DSP}/campaigns/4242/targetings`)).status).toBe(404);
  });

  it("replaces the whole list of an inactive campaign, normalized (ids as sets, exclude false when absent)", async () => {
    s = await boot();
    const reply = await s.call("PUT", `${DSP}/campaigns/5002/targetings`, {
      targetings: [{ venue_targeting_option: { venue_targeting_ids: ["v2", "v1", "v2"] } }, publishers],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.targetings).toEqual([
      { publisher_targeting_option: { publisher_ids: ["77"], exclude: true } },
      { venue_targeting_option: { venue_targeting_ids: ["v1", "v2"], exclude: false } },
    ]);
    expect((await s.get(`${DSP}/campaigns/5002/targetings`)).body).toEqual(reply.body);
    const cleared = await s.call("PUT", `${DSP}/campaigns/5002/targetings`, { targetings: [] });
    expect(cleared.body).toEqual({ targetings: [] });
  });

  it("lets an active campaign gain option sets but keeps every set it has", async () => {
    s = await boot();
    const added = await s.call("PUT", `${DSP}/campaigns/5001/targetings`, {
      targetings: [
        { venue_type_targeting_option: { venue_type_ids: ["14", "12"], exclude: false } },
        publishers,
      ],
    });
    expect(added.status).toBe(200);
    expect(added.body.targetings).toHaveLength(2);
  });

  it("refuses to drop, empty or change a set of an active campaign, and allows it once the campaign is inactive", async () => {
    s = await boot();
    const refusal = {
      message: "Invalid Request",
      data: [{ field: "targetings", messages: ["cannot remove targetings from an active campaign"] }],
    };
    for (const targetings of [
      [],
      [publishers],
      [{ venue_type_targeting_option: { venue_type_ids: ["12", "14", "15"] } }],
      [{ venue_type_targeting_option: { venue_type_ids: ["12", "14"], exclude: true } }],
    ]) {
      const reply = await s.call("PUT", `${DSP}/campaigns/5001/targetings`, { targetings });
      expect(reply.status).toBe(422);
      expect(reply.body).toEqual(refusal);
    }
    expect(s.emulator.state().targetings["5001"]).toEqual([
      { venue_type_targeting_option: { venue_type_ids: ["12", "14"], exclude: false } },
    ]);
    await s.call("PATCH", `${DSP}/campaigns/5001`, { active: false });
    expect((await s.call("PUT", `${DSP}/campaigns/5001/targetings`, { targetings: [] })).status).toBe(200);
  });

  it("validates option sets: at least one option, non-empty id lists, numeric venue types, no exclude on deals", async () => {
    s = await boot();
    const reply = await s.call("PUT", `${DSP}/campaigns/5002/targetings`, {
      targetings: [
        {},
        { deal_targeting_option: { deal_ids: ["d1"], exclude: true } },
        { venue_type_targeting_option: { venue_type_ids: ["cinema"] } },
        { publisher_targeting_option: { publisher_ids: [] }, colour: {} },
        venueTypes,
      ],
    });
    expect(reply.status).toBe(422);
    expect(fields(reply)).toEqual({
      "targetings[0]": ["must hold at least one targeting option"],
      "targetings[1].deal_targeting_option.exclude": ["is not a known property"],
      "targetings[2].venue_type_targeting_option.venue_type_ids": ["must hold numeric strings only"],
      "targetings[3].colour": ["is not a known property"],
      "targetings[3].publisher_targeting_option.publisher_ids": ["must not be empty"],
    });
  });
});
