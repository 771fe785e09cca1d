import { afterEach, describe, expect, it } from "vitest";
import { PROCESSING_DELAY_MS } from "../../src/emulator/index.js";
import { USER } from "../helpers/users.js";
import { boot, DSP, fields, login, type Session } from "./helpers.js";

let s: Session | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const asset = (url: string) => ({
  url,
  width: 1920,
  height: 1080,
  format: "image/png",
  file_size_bytes: 2048,
});

describe("creative associations (G6 rules 1 to 5)", () => {
  it("associates a campaign and adds its insertion order (rule 3); removing it keeps the order", async () => {
    s = await boot();
    const reply = await s.call("PATCH", `${DSP}/creatives`, {
      creatives: [{ id: "9001", campaign_ids: ["5001", "5002"], category_ids: ["2", "1"] }],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.creatives[0]).toMatchObject({
      campaign_ids: ["5001", "5002"],
      insertion_order_ids: ["1001"],
      category_ids: ["1", "2"],
    });
    const removed = await s.call("PATCH", `${DSP}/creatives/9001`, { campaign_ids: [] });
    expect(removed.body).toMatchObject({ campaign_ids: [], insertion_order_ids: ["1001"] });
  });

  it("refuses missing campaigns, other advertisers' campaigns, archived creatives gaining campaigns and unknown categories", async () => {
    s = await boot();
    const before = s.emulator.state();
    const reply = await s.call("PATCH", `${DSP}/creatives`, {
      creatives: [
        { id: "9001", campaign_ids: ["5001", "4242", "5003"] },
        { id: "9002", campaign_ids: ["5002"] },
        {
          id: "9003",
          category_ids: ["99"],
          insertion_order_ids: ["1001"],
          name: "x",
          pixel_url: "not a url",
        },
      ],
    });
    expect(reply.status).toBe(422);
    expect(fields(reply)).toEqual({
      "creatives[0].campaign_ids": [
        "campaign 4242 does not exist",
        "advertiser does not match campaign 5003",
      ],
      "creatives[1].campaign_ids": ["is archived"],
      "creatives[2].name": ["is read-only"],
      "creatives[2].pixel_url": ["must be an absolute URL"],
      "creatives[2].category_ids": ["category 99 does not exist"],
      "creatives[2].insertion_order_ids": ["advertiser does not match insertion order 1001"],
    });
    expect(s.emulator.state()).toEqual(before);
  });
});

describe("creative creation (G6)", () => {
  it("creates creatives PROCESSING that settle on the emulator's clock, FAILED when the asset is not https", async () => {
    s = await boot();
    const reply = await s.call("POST", `${DSP}/creatives`, {
      creatives: [
        { name: "Banner", advertiser_id: "1", type: "IMAGE", asset: asset("https://cdn.example.com/b.png") },
        {
          name: "Plain",
          advertiser_id: "2",
          type: "IMAGE",
          asset: asset("http://cdn.example.com/p.png"),
          category_ids: ["2"],
        },
      ],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.creatives[0]).toMatchObject({
      id: "9004",
      processing_status: "PROCESSING",
      create_time: "2026-11-01T00:00:00Z",
      campaign_ids: [],
      archived: false,
      audits: [],
    });
    s.clock.advance(PROCESSING_DELAY_MS - 1);
    expect((await s.get(`${DSP}/creatives/9004`)).body.processing_status).toBe("PROCESSING");
    s.clock.advance(1);
    expect((await s.get(`${DSP}/creatives/9004`)).body.processing_status).toBe("PROCESSED");
    expect((await s.get(`${DSP}/creatives?filter=processing_status:FAILED`)).body.creatives[0].id).toBe(
      "9005",
    );
  });

  it("refuses unknown advertisers, types and incomplete assets, creating nothing", async () => {
    s = await boot();
    const reply = await s.call("POST", `${DSP}/creatives`, {
      creatives: [{ name: "X", advertiser_id: "77", type: "GIF", asset: { url: "https://x" } }],
    });
    expect(fields(reply)).toEqual({
      "creatives[0].advertiser_id": ["does not exist"],
      "creatives[0].type": [
        "must be one of NONE, DYNAMIC, SAGE_AND_ARCHER_DYNAMIC, IMAGE, VIDEO, AUDIO, UNKNOWN",
      ],
      "creatives[0].asset.width": ["is required"],
      "creatives[0].asset.height": ["is required"],
      "creatives[0].asset.format": ["is required"],
      "creatives[0].asset.file_size_bytes": ["is required"],
    });
    expect(s.emulator.state().creatives).toHaveLength(3);
  });
});

describe("advertisers (G7)", () => {
  it("creates an advertiser and refuses a name that exists in any case", async () => {
    s = await boot();
    const created = await s.call("POST", `${DSP}/advertisers`, { name: "Fabrikam" });
    expect(created.body).toEqual({ id: "3", name: "Fabrikam" });
    const dup = await s.call("POST", `${DSP}/advertisers`, { name: "NORTHWIND beverages" });
    expect(dup.body).toEqual({
      message: "Invalid Request",
      data: [{ field: "name", messages: ["already exists"] }],
    });
    expect((await s.get(`${DSP}/advertisers/3`)).body).toEqual({ id: "3", name: "Fabrikam" });
  });
});

describe("media-owner interface (G11)", () => {
  it("records an audit as the network's entry in the DSP view and answers the media-owner view", async () => {
    s = await boot();
    const reply = await s.call("PATCH", "/api/media_owner/v1/creatives/9001", {
      audit: { status: "DENIED", message: "Alcohol near schools", tag_ids: ["t1"] },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id: "9001",
      network_id: "1",
      audit: {
        status: "DENIED",
        message: "Alcohol near schools",
        category_ids: ["1"],
        tag_ids: ["t1"],
        last_reviewer: USER.email,
      },
    });
    const dsp = await s.get(`${DSP}/creatives/9001`);
    expect(dsp.body.audits).toEqual([
      {
        network_id: "1",
        status: "DENIED",
        message: "Alcohol near schools",
        last_reviewed: "2026-11-01T00:00:00Z",
      },
    ]);
    const bad = await s.call("PATCH", "/api/media_owner/v1/creatives/9001", { audit: { status: "MAYBE" } });
    expect(fields(bad)).toEqual({ "audit.status": ["must be one of PENDING, APPROVED, DENIED"] });
  });

  it("lists a creative's campaigns with their dates, ordered by start_date or end_date", async () => {
    s = await boot();
    await s.call("PATCH", `${DSP}/creatives/9001`, { campaign_ids: ["5001", "5002"] });
    s.cookie = await login(s.emulator.origin);
    const reply = await s.get("/api/media_owner/v1/creatives/9001/campaigns?order=end_date&asc=true");
    expect(reply.body.total_size).toBe(2);
    expect(reply.body.campaigns[0]).toEqual({
      start_date: "2026-12-01T00:00:00Z",
      end_date: "2027-01-01T00:00:00Z",
      markets: ["Market of insertion order 1001"],
    });
    expect((await s.get("/api/media_owner/v1/creatives/9001/campaigns?order=name")).status).toBe(422);
  });
});
