/**
 * The action's run step (action.yml, `id: run`) as bash runs it on a runner: shell-style
 * quoting in `command`, stdout and stderr both shown and kept in files, the exit code as an
 * output, and `ok-exit-codes` deciding success. `doohctl` here is a stand-in script.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const ACTION = parse(readFileSync(join(import.meta.dirname, "../../action.yml"), "utf8"));
const RUN_STEP: string = ACTION.runs.steps.find((s: { id?: string }) => s.id === "run").run;

function runStep(command: string, okExitCodes: string, fakeExit: number) {
  const dir = mkdtempSync(join(tmpdir(), "doohctl-action-"));
  const bin = join(dir, "bin");
  mkdirSync(bin);
  // Prints each argument on its own line, a line on stderr, and exits as told.
  writeFileSync(
    join(bin, "doohctl"),
    `#!/usr/bin/env bash\nfor a in "$@"; do echo "arg:$a"; done\necho "stderr line" >&2\nexit ${fakeExit}\n`,
  );
  chmodSync(join(bin, "doohctl"), 0o755);
  const output = join(dir, "github-output");
  writeFileSync(output, "");
  const log = execFileSync("bash", ["-c", RUN_STEP], {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      PATH: `${bin}:${process.env.PATH}`,
      RUNNER_TEMP: dir,
      GITHUB_RUN_ATTEMPT: "1",
      GITHUB_OUTPUT: output,
      DOOHCTL_ARGS: command,
      OK_EXIT_CODES: okExitCodes,
      BASE_REF: "main",
    },
  });
  const outputs = Object.fromEntries(
    readFileSync(output, "utf8")
      .trim()
      .split("\n")
      .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]),
  );
  return { log, outputs };
}

describe("action.yml run step", () => {
  it("passes quoted arguments and expands the caller's env, keeping stdout in a file", () => {
    const { log, outputs } = runStep('plan "my campaigns/" --changed-since "origin/$BASE_REF"', "0 2", 2);
    expect(log).toContain("arg:my campaigns/\n");
    expect(readFileSync(outputs["stdout-file"]!, "utf8")).toBe(
      "arg:plan\narg:my campaigns/\narg:--changed-since\narg:origin/main\n",
    );
    expect(readFileSync(outputs["stderr-file"]!, "utf8")).toBe("stderr line\n");
    expect(outputs).toMatchObject({ "exit-code": "2", ok: "true" });
  });

  it("reports a failure when the exit code is not one of ok-exit-codes, without failing the step itself", () => {
    const { outputs } = runStep("apply --plan plan.json --auto-approve", "0", 1);
    expect(outputs).toMatchObject({ "exit-code": "1", ok: "false" });
  });
});
