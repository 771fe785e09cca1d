/**
 * The emulator is strict to the contract: each divergence a differential run found
 * against an independent reading of the specification, checked over real HTTP.
 */
import { afterEach, describe, expect, it } from "vitest";
import { PUBLISHED_RATE_LIMITS } from "../../src/model/limits.js";
import { seedAccount, seedCreativeWith } from "../helpers/builders.js";
import { OTHER_ACCOUNT_USER, USER } from "../helpers/users.js";
import { boot, DSP, fields, login, request, type Session } from "./helpers.js";

let s: Session | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const MEDIA_OWNER = "/api/media_owner/v1";
const ids = (items: { id: string }[]) => items.map((i) => i.id);

describe("lists take only the fields the specification names (G12)", () => {
  it("refuses any filter, search or order on creative categories, naming the parameter", async () => {
    s = await boot();
    for (const [query, field] of [
      ["filter=id:1", "filter"],
      ["search=name:bev", "search"],
      ["order=name", "order"],
    ] as const) {
      const reply = await s.get(`${DSP}/creative_categories?${query}`);
      expect(reply.status, query).toBe(422);
      expect(Object.keys(fields(reply)), query).toEqual([field]);
    }
    const plain = await s.get(`${DSP}/creative_categories?page_size=100`);
    expect(plain.body).toEqual({
      creative_categories: [
        { id: "1", name: "Beverages" },
        { id: "2", name: "Travel" },
      ],
      total_size: 2,
    });
  });

  it("refuses an order on advertisers, which name filter id and search name only", async () => {
    s = await boot();
    const reply = await s.get(`${DSP}/advertisers?order=name`);
    expect(reply.status).toBe(422);
    expect(fields(reply)).toEqual({
      order: ["name is not an order field of this list: the specification names no order field for it"],
    });
    expect(ids((await s.get(`${DSP}/advertisers?filter=id:2`)).body.advertisers)).toEqual(["2"]);
  });

  it("words a broken page or page_size bound as the specification does", async () => {
    s = await boot();
    expect(fields(await s.get(`${DSP}/creatives?page=101`))).toEqual({
      page: ["is not less than or equal to 100"],
    });
    expect(fields(await s.get(`${DSP}/creatives?page_size=101`))).toEqual({
      page_size: ["is not less than or equal to 100"],
    });
    expect(fields(await s.get(`${DSP}/creatives?page_size=-1`))).toEqual({
      page_size: ["is not greater than or equal to 0"],
    });
  });
});

describe("writes take no query parameter", () => {
  it("refuses one on a PATCH, POST or PUT with a 422 naming it, and changes nothing", async () => {
    s = await boot();
    const before = s.emulator.state();
    const patch = await s.call("PATCH", `${DSP}/campaigns/5002?dry_run=true`, { budget_impressions: 1 });
    expect(patch.status).toBe(422);
    expect(fields(patch)).toEqual({ dry_run: ["is not a known parameter"] });
    const put = await s.call("PUT", `${DSP}/campaigns/5002/targetings?force=1`, { targetings: [] });
    expect(fields(put)).toEqual({ force: ["is not a known parameter"] });
    const post = await s.call("POST", `${DSP}/advertisers?validate_only=true`, { name: "New brand" });
    expect(fields(post)).toEqual({ validate_only: ["is not a known parameter"] });
    expect(s.emulator.state()).toEqual(before);
  });
});

describe("payload values (G12)", () => {
  it("takes a time only with an upper-case T and a Z or +00:00 zone", async () => {
    s = await boot();
    const patch = (end: string) => s!.call("PATCH", `${DSP}/campaigns/5002`, { end_time: end });
    for (const refused of [
      "2026-12-20T00:00:00-00:00",
      "2026-12-20t00:00:00Z",
      "2026-12-20T00:00:00z",
      "2026-12-20T01:00:00+01:00",
    ]) {
      const reply = await patch(refused);
      expect(reply.status, refused).toBe(422);
      expect(Object.keys(fields(reply)), refused).toEqual(["end_time"]);
    }
    expect((await patch("2026-12-20T00:00:00+00:00")).body.end_time).toBe("2026-12-20T00:00:00Z");
    expect((await patch("2026-12-21T00:00:00.500Z")).body.end_time).toBe("2026-12-21T00:00:00.500Z");
  });

  it("reads an omitted nanos as 0 but refuses nanos: null", async () => {
    s = await boot();
    const refused = await s.call("PATCH", `${DSP}/campaigns/5002`, {
      cpm: { currency_code: "USD", units: "9", nanos: null },
    });
    expect(refused.status).toBe(422);
    expect(fields(refused)).toEqual({
      "cpm.nanos": ["must be an integer between -999999999 and 999999999"],
    });
    const omitted = await s.call("PATCH", `${DSP}/campaigns/5002`, {
      cpm: { currency_code: "USD", units: "9" },
    });
    expect(omitted.body.cpm).toEqual({ currency_code: "USD", units: "9", nanos: 0 });
  });
});

describe("the media-owner interface's cookies", () => {
  it("accepts the session as tr-staging or tr-production; the DSP takes its environment's only", async () => {
    s = await boot();
    const token = s.cookie.split("=")[1]!;
    const staging = `tr-staging=${token}`;
    const networks = await request(s.emulator.origin, "GET", `${MEDIA_OWNER}/networks`, { cookie: staging });
    expect(networks.status).toBe(200);
    expect(networks.body.total_size).toBe(2);
    expect((await request(s.emulator.origin, "GET", `${DSP}/campaigns`, { cookie: staging })).status).toBe(
      401,
    );
  });

  it("in staging accepts a tr-production cookie too", async () => {
    s = await boot({ environment: "staging" });
    expect(s.cookie.startsWith("tr-staging=")).toBe(true);
    const production = `tr-production=${s.cookie.split("=")[1]!}`;
    const reply = await request(s.emulator.origin, "GET", `${MEDIA_OWNER}/creative_categories/1`, {
      cookie: production,
    });
    expect(reply.body).toEqual({ id: "1", name: "Beverages" });
    const unknown = await request(s.emulator.origin, "GET", `${MEDIA_OWNER}/networks`, {
      cookie: "tr-production=not-a-session",
    });
    expect(unknown.status).toBe(403);
  });
});

describe("rate limits count every answer but 429 (G10)", () => {
  it("counts a 404 for an unknown path or a wrong method in the user's window", async () => {
    s = await boot({
      rateLimits: {
        ...PUBLISHED_RATE_LIMITS,
        get: { limit: 2, windowMs: 60_000 },
        write: { limit: 1, windowMs: 60_000 },
      },
    });
    expect((await s.get(`${DSP}/no_such_list`)).status).toBe(404);
    expect((await s.get(`${DSP}/campaigns/404404`)).status).toBe(404);
    expect((await s.get(`${DSP}/campaigns`)).status).toBe(429);
    expect((await s.call("PUT", `${DSP}/campaigns/5001`, {})).status).toBe(404);
    const write = await s.call("PATCH", `${DSP}/campaigns/5002`, { pacing: {} });
    expect(write.status).toBe(429);
    expect(s.emulator.requestLog().map((r) => r.status)).toEqual([200, 404, 404, 429, 404, 429]);
  });
});

describe("creatives belong to one seat", () => {
  const twoSeats = () =>
    seedAccount({
      users: [USER, OTHER_ACCOUNT_USER],
      creatives: [
        seedCreativeWith({ id: "9001", campaign_ids: ["5001"], insertion_order_ids: ["1001"] }),
        seedCreativeWith({ id: "9002", seat_id: "2", name: "Other seat's spot" }),
        seedCreativeWith({ id: "9003", seat_id: "1", name: "Mine" }),
      ],
    });

  it("lists and reads the current seat's creatives only", async () => {
    s = await boot({ seed: twoSeats() });
    const mine = await s.get(`${DSP}/creatives`);
    expect(ids(mine.body.creatives)).toEqual(["9001", "9003"]);
    expect(mine.body.total_size).toBe(2);
    expect(mine.body.creatives[0]).not.toHaveProperty("seat_id");
    const filtered = await s.get(`${DSP}/creatives?filter=id:9002&filter=id:9003`);
    expect(ids(filtered.body.creatives)).toEqual(["9003"]);
    expect((await s.get(`${DSP}/creatives/9002`)).status).toBe(404);
    const other = await login(s.emulator.origin, OTHER_ACCOUNT_USER);
    const theirs = await request(s.emulator.origin, "GET", `${DSP}/creatives`, { cookie: other });
    expect(ids(theirs.body.creatives)).toEqual(["9002"]);
  });

  it("never writes another seat's creative", async () => {
    s = await boot({ seed: twoSeats() });
    const before = s.emulator.state();
    const one = await s.call("PATCH", `${DSP}/creatives/9002`, { pixel_url: "https://p.example.com/x" });
    expect(one.status).toBe(404);
    const batch = await s.call("PATCH", `${DSP}/creatives`, {
      creatives: [
        { id: "9003", pixel_url: "https://p.example.com/a" },
        { id: "9002", pixel_url: "https://p.example.com/b" },
      ],
    });
    expect(batch.status).toBe(422);
    expect(fields(batch)).toEqual({ "creatives[1].id": ["does not exist"] });
    expect(s.emulator.state()).toEqual(before);
  });

  it("puts a created creative in the creator's seat", async () => {
    s = await boot({ seed: twoSeats() });
    const created = await s.call("POST", `${DSP}/creatives`, {
      creatives: [
        {
          name: "New",
          advertiser_id: "1",
          type: "IMAGE",
          asset: {
            url: "https://cdn.example.com/n.png",
            width: 1,
            height: 1,
            format: "image/png",
            file_size_bytes: 1,
          },
        },
      ],
    });
    const id = created.body.creatives[0].id as string;
    expect((await s.get(`${DSP}/creatives/${id}`)).status).toBe(200);
    const other = await login(s.emulator.origin, OTHER_ACCOUNT_USER);
    expect(
      (await request(s.emulator.origin, "GET", `${DSP}/creatives/${id}`, { cookie: other })).status,
    ).toBe(404);
  });

  it("shows the creative's own seat in the media-owner view", async () => {
    s = await boot({ seed: twoSeats() });
    const reply = await s.call("PATCH", `${MEDIA_OWNER}/creatives/9002`, { audit: { status: "APPROVED" } });
    expect(reply.status).toBe(200);
    expect(reply.body.seat_id).toBe("2");
  });
});
