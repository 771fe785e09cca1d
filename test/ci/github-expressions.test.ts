/**
 * The expression evaluator the action tests run action.yml with (test/helpers/github-expressions.ts):
 * it must give the runner's values, and a value is never shell code.
 */
import { describe, expect, it } from "vitest";
import {
  type ExpressionContext,
  evaluate,
  interpolate,
  stepCondition,
} from "../helpers/github-expressions.js";

/** `${{ e }}`, built so that the source holds no template-like string. */
const expr = (e: string) => `\${{ ${e} }}`;

const context = (status: ExpressionContext["status"] = "success"): ExpressionContext => ({
  contexts: {
    inputs: { "pr-number": "", comment: "failure", title: "$(touch pwned) `id`" },
    steps: { run: { outputs: { ok: "false", "exit-code": "1" } } },
  },
  status,
});

describe("GitHub expressions", () => {
  it("reads dashed context properties, compares strings case-insensitively and short-circuits like the runner", () => {
    expect(evaluate("steps.run.outputs.exit-code", context())).toBe("1");
    expect(evaluate("inputs.comment == 'FAILURE'", context())).toBe(true);
    expect(evaluate("inputs.pr-number != ''", context())).toBe(false);
    expect(evaluate("inputs.pr-number || 'none'", context())).toBe("none");
    expect(evaluate("steps.nothing.outputs.x == ''", context())).toBe(true);
    expect(evaluate("'it''s'", context())).toBe("it's");
  });

  it("implies success() in a step's if: unless it names a status function", () => {
    expect(stepCondition("steps.run.outputs.ok != 'true'", context())).toBe(true);
    expect(stepCondition("steps.run.outputs.ok != 'true'", context("cancelled"))).toBe(false);
    expect(stepCondition("always() && steps.run.outputs.ok != 'true'", context("cancelled"))).toBe(true);
    expect(stepCondition(undefined, context("failure"))).toBe(false);
  });

  it("indexes a context by a computed name and formats text, as the fan-out workflows read an account's secret", () => {
    const fanout: ExpressionContext = {
      contexts: {
        matrix: { email_from: "DOOHCTL_NORTH_EMAIL" },
        secrets: { DOOHCTL_NORTH_EMAIL: "write", DOOHCTL_NORTH_EMAIL_PLAN: "read" },
      },
      status: "success",
    };
    expect(evaluate("secrets[matrix.email_from]", fanout)).toBe("write");
    expect(evaluate("secrets[format('{0}_PLAN', matrix.email_from)]", fanout)).toBe("read");
    expect(evaluate("secrets[format('{0}_NONE', matrix.email_from)]", fanout)).toBe(null);
    expect(evaluate("format('{{{0}}}-{1}', 'a', 2)", fanout)).toBe("{a}-2");
    expect(() => evaluate("secrets['x'", fanout)).toThrow();
    expect(() => evaluate("secrets", fanout)).toThrow(/object/);
  });

  it("puts values into text as text, and refuses what it does not know", () => {
    expect(interpolate(`title: ${expr("inputs.title")}`, context())).toBe("title: $(touch pwned) `id`");
    expect(() => evaluate("contains(inputs.title, 'x')", context())).toThrow(/unsupported/);
    expect(() => evaluate("inputs.title ==", context())).toThrow();
  });
});
