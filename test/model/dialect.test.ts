import { describe, expect, it } from "vitest";
import {
  changedKeys,
  DEFAULT_DIALECT,
  DIALECT_KEYS,
  dialectValue,
  parseDialect,
} from "../../src/model/dialect.js";

const problemsOf = (raw: unknown) => {
  const parsed = parseDialect(raw);
  return "problems" in parsed ? parsed.problems : [];
};

describe("parseDialect", () => {
  it("defaults every key to today's gap decision", () => {
    expect(parseDialect({})).toEqual({ dialect: DEFAULT_DIALECT });
    expect(changedKeys(DEFAULT_DIALECT)).toEqual([]);
  });

  it("keeps a written key and defaults the rest of its group", () => {
    const parsed = parseDialect({ progress: { member: "delivery" }, campaign_targetings: "targetings" });
    expect(parsed).toEqual({
      dialect: {
        ...DEFAULT_DIALECT,
        progress: { ...DEFAULT_DIALECT.progress, member: "delivery" },
        campaign_targetings: "targetings",
      },
    });
    if ("dialect" in parsed)
      expect(changedKeys(parsed.dialect)).toEqual(["progress.member", "campaign_targetings"]);
  });

  it("every key of the table is read back by dialectValue", () => {
    for (const { key } of DIALECT_KEYS) expect(dialectValue(DEFAULT_DIALECT, key)).not.toBeUndefined();
  });

  it.each([
    ["https://evil.example/insertion_orders", "never a URL"],
    ["//evil.example/insertion_orders", "never a URL"],
    ["/insertion_orders/../session", "no `..`"],
    ["/insertion_orders?x=1", "no `..`, query"],
    ["/insertion%2forders", "no `..`, query, `%`"],
    ["/insertion_orders//x", "empty segment"],
    ["/insertion_orders/{id}", "must not hold `{id}`"],
  ])("refuses the insertion order path %s", (path, words) => {
    const [problem] = problemsOf({ insertion_orders_path: path });
    expect(problem?.key).toBe("insertion_orders_path");
    expect(problem?.message).toContain(words);
  });

  it("wants {id} once in the targeting read path", () => {
    expect(problemsOf({ targetings: { read_path: "/campaigns/targetings" } })[0]?.message).toContain(
      "`{id}` once",
    );
    expect(problemsOf({ targetings: { read_path: "/campaigns/{id}/{id}" } })[0]?.message).toContain(
      "`{id}` once",
    );
    expect(problemsOf({ targetings: { read_path: "/targeting/{id}" } })).toEqual([]);
  });

  it.each([
    ["progress.parameter", { progress: { parameter: "include_progress" } }, "`name=value`"],
    ["progress.parameter", { progress: { parameter: "page=1" } }, "list parameter"],
    ["progress.parameter", { progress: { parameter: "a=1&b=2" } }, "`name=value`"],
    ["progress.member", { progress: { member: "__proto__" } }, "must not be __proto__"],
    ["contract_number", { contract_number: "po number" }, "JSON member name"],
    ["contract_number", { contract_number: "x".repeat(65) }, "JSON member name"],
    ["progress.member", { progress: { member: "active" } }, "another campaign member"],
    ["contract_number", { contract_number: "budget_money" }, "another insertion order member"],
    ["campaign_targetings", { campaign_targetings: 3 }, "member name or null"],
    ["progress.spend", { progress: { spend: "impressions_delivered" } }, "differ from progress.impressions"],
    ["campaign_targetings", { campaign_targetings: "progress" }, "differ from progress.member"],
    ["colour", { colour: "red" }, "not a dialect key"],
    ["targetings.path", { targetings: { path: "/x/{id}" } }, "not a dialect key"],
    ["progress", { progress: "progress" }, "must be a mapping"],
  ])("refuses %s in %j", (key, raw, words) => {
    const [problem] = problemsOf(raw);
    expect(problem).toEqual({ key, message: expect.stringContaining(words) });
  });

  it("refuses what is not a mapping", () => {
    expect(problemsOf(["insertion_orders_path"])).toEqual([
      { key: "", message: "must be a mapping of dialect keys" },
    ]);
  });
});

describe("paths a dialect places", () => {
  it.each([
    [{ insertion_orders_path: "/campaigns" }, "insertion_orders_path", "/campaigns"],
    [{ insertion_orders_path: "/creatives" }, "insertion_orders_path", "/creatives"],
    [{ targetings: { read_path: "/campaigns/{id}" } }, "targetings.read_path", "/campaigns/{id}"],
    [
      { targetings: { read_path: "/insertion_orders/{id}" } },
      "targetings.read_path",
      "/insertion_orders/{id}",
    ],
    [
      { insertion_orders_path: "/orders", targetings: { read_path: "/orders/{id}" } },
      "targetings.read_path",
      "/orders/{id}",
    ],
  ])("refuses %j, which reaches another read's paths", (raw, key, other) => {
    const [problem] = problemsOf(raw);
    expect(problem?.key).toBe(key);
    expect(problem?.message).toContain(`same paths as ${other}`);
  });

  it("takes paths of their own", () => {
    expect(
      problemsOf({
        insertion_orders_path: "/orders",
        targetings: { read_path: "/campaigns/{id}/targeting_sets" },
      }),
    ).toEqual([]);
    expect(
      problemsOf({
        insertion_orders_path: "/v2/insertion-orders",
        targetings: { read_path: "/targetings/{id}" },
      }),
    ).toEqual([]);
  });
});
