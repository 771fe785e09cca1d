import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/plan/saved/canonical.js";
import { type PlanFileError, parsePlan, serializePlan } from "../../src/plan/saved/file.js";
import { desiredCampaign, desiredIo, desiredState, liveCampaign, liveState } from "../helpers/builders.js";
import { usd } from "../helpers/money.js";
import { plan } from "../helpers/plans.js";

function sample() {
  const live = liveState({ campaigns: [liveCampaign()] });
  return plan(
    desiredState([
      desiredIo("1001", { campaigns: [desiredCampaign("Airports", { fields: { cpm: usd("13") } })] }),
    ]),
    live,
  );
}

describe("saved plans", () => {
  it("round-trips a plan through its JSON document and the schema", () => {
    const p = sample();
    const text = serializePlan(p);
    expect(parsePlan(text, "plan.json")).toEqual(p);
    expect(serializePlan(parsePlan(text, "plan.json"))).toBe(text);
    expect(text.startsWith('{\n  "format_version": 1,\n  "tool_version"')).toBe(true);
  });

  it("records the rate windows it was made for, so apply --plan paces the same way", () => {
    const p = sample();
    expect(p.connection.rate_limits).toBe("get=100/60s,write=10/60s,session=10/60s");
    expect(parsePlan(serializePlan(p), "plan.json").connection.rate_limits).toBe(p.connection.rate_limits);
  });

  it("still reads a plan saved before the windows were recorded", () => {
    const p = sample();
    const { rate_limits: _, ...older } = p.connection;
    const text = serializePlan({ ...p, connection: older });
    expect(parsePlan(text, "plan.json").connection.rate_limits).toBeUndefined();
  });

  it("writes sorted keys with the same layout JSON.stringify would give", () => {
    const value = { b: [1, { d: null, c: "x" }], a: {}, e: [] };
    expect(canonicalJson(value, "  ")).toBe(
      JSON.stringify({ a: {}, b: [1, { c: "x", d: null }], e: [] }, null, 2),
    );
    expect(canonicalJson(value)).toBe('{"a":{},"b":[1,{"c":"x","d":null}],"e":[]}');
  });

  it("writes id keys in string order where their numeric order differs, as 10000 before 9999", () => {
    const names = { "9999": "Bus stops", "10000": "Airports", name: "x" };
    expect(canonicalJson(names, "  ")).toBe(
      '{\n  "10000": "Airports",\n  "9999": "Bus stops",\n  "name": "x"\n}',
    );
    expect(canonicalJson({ ids: [names] })).toBe(
      '{"ids":[{"10000":"Airports","9999":"Bus stops","name":"x"}]}',
    );
  });

  it("keeps an insertion order's snapshot plain data when its campaign ids sort unlike numbers", () => {
    const live = liveState({
      campaigns: [
        liveCampaign({ id: "9999", name: "Bus stops" }),
        liveCampaign({ id: "10000", name: "Airports" }),
      ],
    });
    const p = plan(
      desiredState([
        desiredIo("1001", {
          campaigns: [
            desiredCampaign("Bus stops", { fields: { cpm: usd("13") } }),
            desiredCampaign("Airports"),
          ],
        }),
      ]),
      live,
    );
    const snapshot = p.fingerprints.find((f) => f.kind === "insertion_order")?.snapshot;
    expect(structuredClone(snapshot)).toEqual(snapshot);
    const text = serializePlan(p);
    expect(text).toContain(
      '"campaigns": {\n          "10000": "Airports",\n          "9999": "Bus stops"\n        }',
    );
    expect(serializePlan(parsePlan(text, "plan.json"))).toBe(text);
  });

  it("refuses a plan of another format version with what to do", () => {
    const text = serializePlan(sample()).replace('"format_version": 1', '"format_version": 2');
    expect(() => parsePlan(text, "plan.json")).toThrow(
      /plan format 2; this doohctl reads format 1: make the plan again/,
    );
    try {
      parsePlan(text, "plan.json");
    } catch (error) {
      expect((error as PlanFileError).code).toBe("PLAN_FORMAT_VERSION");
    }
  });

  it("refuses a file that is not JSON or breaks the schema, naming the file", () => {
    expect(() => parsePlan("{", "p.json")).toThrow(/p.json is not a plan file/);
    const broken = JSON.parse(serializePlan(sample()));
    broken.requests[0].method = "DELETE";
    expect(() => parsePlan(JSON.stringify(broken), "p.json")).toThrow(
      /p.json is not a valid plan: \/requests\/0\/method/,
    );
  });

  it("holds no secret: the connection is origin, environment and rate windows only", () => {
    const text = serializePlan(sample());
    expect(Object.keys(JSON.parse(text).connection)).toEqual(["api_origin", "environment", "rate_limits"]);
  });
});
