/**
 * Where the contract and the emulator disagreed on what may be sent. Where
 * the specification or a gap decision settles the point, the contract says it, so the
 * client's request check refuses it before any write; where neither does, the emulator is
 * loosened to the contract (docs/emulator.md, "Requests").
 */
import { afterEach, describe, expect, it } from "vitest";
import { Endpoints } from "../../src/api/endpoints.js";
import { checkRequest } from "../helpers/contract-check.js";
import { USER } from "../helpers/users.js";
import { boot, DSP, fields, request, type Session } from "./helpers.js";

let s: Session | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const ats = (request: Parameters<typeof checkRequest>[0]) => checkRequest(request).map((i) => i.at);

describe("the contract says what the specification and G1 to G16 decide", () => {
  it("G8: an amount is never negative, units or nanos", () => {
    const minus = { currency_code: "USD", units: "-1", nanos: 0 };
    expect(ats(Endpoints.patchCampaigns([{ id: "5001", cpm: minus }]))).toEqual(["/campaigns/0/cpm/units"]);
    const nanos = { currency_code: "USD", units: "0", nanos: -5 };
    expect(ats(Endpoints.patchCampaigns([{ id: "5001", cpm: nanos }]))).toEqual(["/campaigns/0/cpm/nanos"]);
    expect(
      ats(Endpoints.patchCampaigns([{ id: "5001", cpm: { currency_code: "USD", units: "12", nanos: 0 } }])),
    ).toEqual([]);
  });

  it("G12: a boolean filter takes true or false", () => {
    expect(ats(Endpoints.campaigns.request({ filter: { active: ["yes"] } as never }))).toEqual(["?filter/0"]);
    expect(
      ats(Endpoints.campaigns.request({ filter: { active: [true], insertion_order_id: ["1 2"] } })),
    ).toEqual([]);
    expect(ats(Endpoints.creatives.request({ filter: { archived: ["1"] } as never }))).toEqual(["?filter/0"]);
  });

  it("spec: a pixel_url is a URL", () => {
    expect(ats(Endpoints.patchCreatives([{ id: "9001", pixel_url: "pixel.example.com" }]))).toEqual([
      "/creatives/0/pixel_url",
    ]);
    expect(ats(Endpoints.patchCreatives([{ id: "9001", pixel_url: "https://p.example.com/p?c=1" }]))).toEqual(
      [],
    );
  });
});

describe("the emulator, loosened to the contract where nothing decides", () => {
  it("takes any absolute URL of any length as a pixel_url", async () => {
    s = await boot();
    const long = `https://pixel.example.com/${"p".repeat(3000)}`;
    for (const url of ["ftp://pixel.example.com/p", long]) {
      const reply = await s.call("PATCH", `${DSP}/creatives/9001`, { pixel_url: url });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    }
  });

  it("takes asset sizes past int32, any format text and a URL that is not https (which fails processing, G6)", async () => {
    s = await boot();
    const reply = await s.call("POST", `${DSP}/creatives`, {
      creatives: [
        {
          name: "Huge",
          advertiser_id: "1",
          type: "IMAGE",
          asset: {
            url: "ftp://cdn.example.com/a",
            width: 3_000_000_000,
            height: 1,
            format: "x".repeat(300),
            file_size_bytes: 1,
          },
        },
      ],
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  });

  it("takes ids of any length or content: only existence decides", async () => {
    s = await boot();
    const id = `${"9".repeat(150)} x`;
    const reply = await s.call("PATCH", `${DSP}/creatives/9001`, { category_ids: [id] });
    expect(reply.status).toBe(422);
    expect(fields(reply).category_ids?.[0]).toMatch(/does not exist/);
  });

  it("reads units with a leading zero as the integer they carry", async () => {
    s = await boot();
    const reply = await s.call("PATCH", `${DSP}/campaigns/5002`, {
      cpm: { currency_code: "USD", units: "012" },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.cpm).toEqual({ currency_code: "USD", units: "12", nanos: 0 });
  });

  it("answers an empty email or password as credentials that do not match (401), not a missing field", async () => {
    s = await boot();
    for (const body of [
      { email: "", password: USER.password },
      { email: USER.email, password: "" },
    ]) {
      expect((await request(s.emulator.origin, "POST", "/api/session", { body })).status).toBe(401);
    }
  });

  it("takes times with more than three fraction digits, kept exactly (G14)", async () => {
    s = await boot();
    const reply = await s.call("PATCH", `${DSP}/campaigns/5002`, { end_time: "2027-01-01T00:00:00.123456Z" });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.end_time).toBe("2027-01-01T00:00:00.123456Z");
  });
});
