/**
 * Depth limits on what is read from disk (docs/api-client.md, How much is read; the same
 * MAX_NESTING_DEPTH as DSP answers): a config whose `pacing` nests thousands of levels deep,
 * or a saved plan file that does, is refused with a located error naming the limit, never a
 * "Maximum call stack size exceeded" from a recursive walk (the password search, compare,
 * the fingerprint).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/program.js";
import { loadConfig } from "../../src/config/load.js";
import { bufferIO } from "../helpers/io.js";

/** `{"a":{"a":...1...}}` as YAML flow text, `levels` maps deep. */
const flow = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

/** A config whose campaign's `pacing` nests `levels` maps deep (the pacing map itself counted). */
function config(levels: number): string {
  const dir = mkdtempSync(join(tmpdir(), "doohctl-nesting-"));
  writeFileSync(
    join(dir, "doohctl.yaml"),
    [
      "version: 1",
      "insertion_orders:",
      '  - id: "1001"',
      "    campaigns:",
      "      - name: Deep",
      `        pacing: ${flow(levels)}`,
      "",
    ].join("\n"),
  );
  return dir;
}

async function validate(dir: string) {
  const io = bufferIO({ cwd: dir, env: {} });
  const code = await run(["validate", "--format", "json"], io);
  return { code, issues: JSON.parse(io.out()) as { code: string; message: string; line: number }[] };
}

describe("a config value nested deeper than 64 levels", () => {
  // The document (1), insertion_orders (2), the insertion order (3), campaigns (4), the
  // campaign (5): a pacing of 59 maps ends at level 64.
  it("a pacing that ends at level 64 is valid", async () => {
    const state = await loadConfig([], { cwd: config(59) });
    expect(state.insertionOrders[0]?.campaigns[0]?.name).toBe("Deep");
  });

  it.each([60, 300, 7000])("a pacing of %i maps is refused, located, naming the limit", async (levels) => {
    const { code, issues } = await validate(config(levels));
    expect(code).toBe(1);
    expect(issues).toHaveLength(1);
    expect(issues[0]?.code).toBe("NESTING_TOO_DEEP");
    expect(issues[0]?.message).toContain("nests at most 64 maps and lists");
    expect(issues[0]?.message).not.toContain("Maximum call stack");
    expect(issues[0]?.line).toBe(6);
  });
});

describe("a saved plan file nested deeper than 128 levels", () => {
  it.each([129, 7000])(
    "%i levels: show refuses it with PLAN_FILE_TOO_DEEP, not a stack overflow",
    async (levels) => {
      const dir = mkdtempSync(join(tmpdir(), "doohctl-nesting-plan-"));
      writeFileSync(join(dir, "plan.json"), `{"format_version": 1, "x": ${flow(levels - 1)}}`);
      const io = bufferIO({ env: {}, cwd: dir });
      expect(await run(["show", "plan.json", "--format", "json"], io)).toBe(1);
      const { errors } = JSON.parse(io.out()) as { errors: { code: string; message: string }[] };
      expect(errors).toEqual([
        expect.objectContaining({
          code: "PLAN_FILE_TOO_DEEP",
          message: expect.stringContaining("plan.json nests objects or arrays more than 128 levels deep"),
        }),
      ]);
    },
  );

  it("128 levels is read on (and refused for what it is: not a plan)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "doohctl-nesting-plan-"));
    writeFileSync(join(dir, "plan.json"), `{"format_version": 1, "x": ${flow(127)}}`);
    const io = bufferIO({ env: {}, cwd: dir });
    expect(await run(["show", "plan.json", "--format", "json"], io)).toBe(1);
    expect(io.out()).not.toContain("PLAN_FILE_TOO_DEEP");
  });
});
