/**
 * The tolerant view of the contract, per object kind (G14, src/api/tolerant.ts): what the
 * client keeps of an answer holding extra members, nulls and absent optional members, and
 * which members still stop it. The document as written stays strict (checkAnswer).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { findOperation, readAnswer } from "../../src/api/contract.js";
import { UNDECIDED_MEMBERS } from "../../src/api/members.js";
import type { HttpMethod } from "../../src/api/types.js";
import { campaignMembers } from "../helpers/builders.js";
import { checkAnswer } from "../helpers/contract-check.js";
import { usdParts } from "../helpers/money.js";

const DSP = "/api/dsp/v1";

function read(method: HttpMethod, path: string, body: unknown) {
  const op = findOperation(method, path);
  if (!op) throw new Error(`no operation ${method} ${path}`);
  return { ...readAnswer(op, body), strict: checkAnswer(op, body) };
}

const CPM = usdParts("12");
const campaign = campaignMembers({
  id: "5001",
  name: "Malls",
  active: true,
  end_time: "2027-01-01T00:00:00Z",
  budget_impressions: 100,
  cpm: CPM,
  pacing: { strategy: "even", extra: 1 },
});
const creative = {
  id: "9001",
  campaign_ids: ["5001"],
  insertion_order_ids: ["1001"],
  category_ids: [],
  advertiser_id: "1",
  create_time: "2026-10-01T00:00:00Z",
  name: "Spot",
  thumbnail_url: "https://cdn.example.com/t.png",
  pixel_url: "",
  duration_ms: 0,
  archived: false,
  type: "IMAGE",
  requires_audio: false,
  processing_status: "PROCESSED",
  asset: null,
  audits: [{ network_id: "7", status: "APPROVED", message: "", last_reviewed: "2026-10-02T00:00:00Z" }],
};

describe("the tolerant view keeps what the contract names and drops the rest", () => {
  it("campaigns: extra members on the envelope, the object, its Money and progress are dropped; pacing is kept whole", () => {
    const body = {
      campaigns: [
        {
          ...campaign,
          frequency_cap: 3,
          cpm: { ...CPM, display: "$12" },
          progress: { impressions_delivered: 5, spend: { ...CPM, units: "0" }, pace: "ok" },
        },
      ],
      total_size: 1,
      next_page_token: "x",
    };
    const { issues, kept, strict } = read("GET", `${DSP}/campaigns`, body);
    expect(strict.length).toBeGreaterThan(0); // the document as written refuses it
    expect(issues).toEqual([]);
    expect(kept).toEqual({
      campaigns: [{ ...campaign, progress: { impressions_delivered: 5, spend: { ...CPM, units: "0" } } }],
      total_size: 1,
    });
  });

  it("insertion orders: a null or absent name reads as empty; nullable budgets stay null", () => {
    const io = {
      id: "1001",
      advertiser_id: "1",
      contract_number: null,
      start_time: "2026-12-01T00:00:00Z",
      end_time: "2027-03-01T00:00:00Z",
      budget_impressions: null,
      budget_money: null,
      owner: "sales",
    };
    for (const name of [null, undefined]) {
      const { issues, kept } = read("GET", `${DSP}/insertion_orders/1001`, { ...io, name });
      expect(issues).toEqual([]);
      const { owner: _, ...known } = io;
      expect(kept).toEqual({ ...known, name: "" });
    }
  });

  it("creatives: undecided members null or absent read as unset; a null pixel_url and audits read as none", () => {
    const body = {
      ...creative,
      name: null,
      thumbnail_url: null,
      pixel_url: null,
      type: null,
      duration_ms: null,
      requires_audio: null,
      create_time: null,
      audits: null,
      review_state: "ok",
    };
    const { issues, kept } = read("GET", `${DSP}/creatives/9001`, body);
    expect(issues).toEqual([]);
    expect(kept).toEqual({
      ...creative,
      name: "",
      thumbnail_url: "",
      pixel_url: "",
      type: "UNKNOWN",
      duration_ms: 0,
      requires_audio: false,
      create_time: undefined,
      audits: [],
    });
    expect(Object.keys(kept as object)).not.toContain("create_time");
  });

  it("creative audits: an entry's message and last_reviewed may be unset, its network and status may not", () => {
    const entry = { network_id: "7", status: "DENIED", message: null, note: "x" };
    expect(read("GET", `${DSP}/creatives/9001`, { ...creative, audits: [entry] }).kept).toMatchObject({
      audits: [{ network_id: "7", status: "DENIED", message: "" }],
    });
    const { issues } = read("GET", `${DSP}/creatives/9001`, {
      ...creative,
      audits: [{ ...entry, status: null }],
    });
    expect(issues.map((i) => i.at)).toContain("/audits/0/status");
  });

  it("advertisers, creative categories and networks: extra members dropped, a null name read as empty", () => {
    for (const [path, key] of [
      [`${DSP}/advertisers`, "advertisers"],
      [`${DSP}/creative_categories`, "creative_categories"],
      ["/api/media_owner/v1/networks", "networks"],
    ] as const) {
      const { issues, kept } = read("GET", path, {
        [key]: [{ id: "1", name: null, tier: 2 }],
        total_size: 1,
      });
      expect(issues, path).toEqual([]);
      expect(kept).toEqual({ [key]: [{ id: "1", name: "" }], total_size: 1 });
      const absentId = read("GET", path, { [key]: [{ name: "x" }], total_size: 1 });
      expect(absentId.issues.map((i) => i.at)).toContain(`/${key}/0/id`);
    }
  });

  it("a login answer: its members are not decided with and may be unset", () => {
    const { issues, kept } = read("POST", "/api/session", { email: null, account_id: "1", region: "eu" });
    expect(issues).toEqual([]);
    expect(kept).toEqual({ email: "", account_id: "1" });
  });

  it("targetings: unknown members of a set and fields of a known member are marked, never dropped silently", () => {
    const body = {
      targetings: [
        {
          venue_type_targeting_option: { venue_type_ids: ["12"], exclude: true, radius_m: 5 },
          geo_option: {},
        },
        { deal_targeting_option: { deal_ids: ["3"] } },
      ],
      etag: "x",
    };
    const { issues, kept } = read("GET", `${DSP}/campaigns/5001/targetings`, body);
    expect(issues).toEqual([]);
    expect(kept).toEqual({
      targetings: [
        {
          venue_type_targeting_option: { venue_type_ids: ["12"], exclude: true },
          unknown_members: ["geo_option", "venue_type_targeting_option.radius_m"],
        },
        { deal_targeting_option: { deal_ids: ["3"] } },
      ],
    });
  });

  it("keeps decided members strict: a mistyped id list or exclude of a known option stops", () => {
    const body = { targetings: [{ venue_type_targeting_option: { venue_type_ids: "12", exclude: null } }] };
    const { issues } = read("GET", `${DSP}/campaigns/5001/targetings`, body);
    expect(issues.map((i) => i.at)).toEqual(
      expect.arrayContaining([
        "/targetings/0/venue_type_targeting_option/venue_type_ids",
        "/targetings/0/venue_type_targeting_option/exclude",
      ]),
    );
  });
});

describe("docs/assumptions.md lists, per object, what doohctl does not depend on", () => {
  it("names every member src/api/members.ts reads as unset, on its object's line", () => {
    const doc = readFileSync(new URL("../../docs/assumptions.md", import.meta.url), "utf8");
    const items = doc.split("\n- ").map((item) => item.replace(/\s+/g, " "));
    for (const [schema, members] of Object.entries(UNDECIDED_MEMBERS)) {
      if (schema.startsWith("MediaOwner")) continue; // the client reads none of the media-owner view
      const item = items.find((i) => i.includes(`**${schema}**`));
      expect(item, schema).toBeDefined();
      const notOn = item?.split("Not on")[1] ?? "";
      for (const m of members) expect(notOn, `${schema}.${m}`).toContain(`\`${m}\``);
    }
  });
});

describe("times in answers (G14)", () => {
  it("are kept canonical whatever their fraction digits", () => {
    const body = { campaigns: [{ ...campaign, start_time: "2026-12-01T00:00:00.000000Z" }], total_size: 1 };
    const { issues, kept } = read("GET", `${DSP}/campaigns`, body);
    expect(issues).toEqual([]);
    expect((kept as { campaigns: { start_time: string }[] }).campaigns[0]?.start_time).toBe(
      "2026-12-01T00:00:00Z",
    );
  });

  it("stop the run when they cannot be kept exactly: a non-zero digit after the ninth", () => {
    const body = {
      campaigns: [{ ...campaign, start_time: "2026-12-01T00:00:00.0000000001Z" }],
      total_size: 1,
    };
    const { issues } = read("GET", `${DSP}/campaigns`, body);
    expect(issues).toEqual([{ at: "/", expected: expect.stringContaining("exact to the nanosecond") }]);
  });
});
