/**
 * Dialect values validate refuses though each is a well-formed path (src/model/dialect.ts):
 * a path is under the DSP base path already, so one that repeats it reaches nothing.
 */
import { describe, expect, it } from "vitest";
import { parseDialect } from "../../src/model/dialect.js";

const problemsOf = (raw: unknown) => {
  const parsed = parseDialect(raw);
  return "problems" in parsed ? parsed.problems : [];
};

describe("a dialect path that repeats the DSP base path", () => {
  it("is refused at its key, saying what to write instead", () => {
    const problems = problemsOf({
      insertion_orders_path: "/api/dsp/v1/orders",
      targetings: { read_path: "/api/dsp/v1/campaigns/{id}/sets" },
    });
    expect(problems.map((p) => p.key)).toEqual(["insertion_orders_path", "targetings.read_path"]);
    expect(problems[0]?.message).toContain("without /api/dsp/v1");
    expect(problems[0]?.message).toContain("`/orders`");
    expect(problems[1]?.message).toContain("`/campaigns/{id}/sets`");
  });

  it("stays a path of its own where it only begins like it", () => {
    expect(problemsOf({ insertion_orders_path: "/api/orders" })).toEqual([]);
    expect(problemsOf({ insertion_orders_path: "/api-v2/orders" })).toEqual([]);
  });
});
