/**
 * A `run:` step of your own that applies, cancelled as a GitHub runner cancels it (docs/ci.md,
 * A `run:` step of your own): the step runs under `bash --noprofile --norc -eo pipefail` as the
 * runner runs it (workflow-job.ts), the built doohctl on PATH, and the runner's sequence goes
 * to the step's process only (runner-cancel.ts: SIGINT, 7.5 s later SIGTERM, 2.5 s later the
 * process killed; the job's leftover processes after its last step) once the apply's first
 * targeting PUT landed, while its three campaigns are paused (paused-account.ts).
 * - docs/ci.md's recipe (`exec > >(tee apply.txt) 2>&1; exec doohctl apply ...`): doohctl
 *   stops, reactivates, reports into the log and the file, and the step exits 130, whether it
 *   ends before the SIGTERM or the DSP holds the reactivation past it;
 * - a plain `doohctl apply ... | tee apply.txt` step, as docs/ci.md warns: doohctl never hears
 *   the cancel and applies every change after it; the step exits 0.
 * The three run side by side: one ~8 s wait for all.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { run } from "../../src/cli/program.js";
import type { Step } from "../helpers/composite-action.js";
import { bufferIO } from "../helpers/io.js";
import { type OnRequest, readBody, relay } from "../helpers/proxy.js";
import { cancelLikeGitHub } from "../helpers/runner-cancel.js";
import { runWorkflowJob } from "../helpers/workflow-job.js";
import { ensureBuilt, ROOT } from "../proof/binary.js";
import { type PausingAccount, pausingAccount } from "../proof/paused-account.js";
import { fakeInstallBin } from "./ci-account.js";

beforeAll(() => ensureBuilt(), 180_000);

/** The recipe as docs/ci.md gives it: the one YAML block of its section. */
function recipe(): Step {
  const doc = readFileSync(join(ROOT, "docs", "ci.md"), "utf8");
  const section = doc.slice(doc.indexOf("## A `run:` step of your own"));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  const [step] = parse(block ?? "") as Step[];
  if (step?.run === undefined)
    throw new Error("docs/ci.md has no recipe block under A `run:` step of your own");
  return step;
}

const PLAIN_TEE: Step = {
  name: "Apply",
  run: "doohctl apply --plan plan.json --auto-approve | tee apply.txt\n",
};

/**
 * Plans the account (plan.json in its directory, the job's workspace), then runs `step` as a
 * workflow job's one step and cancels it like the runner once the first targeting PUT landed.
 */
async function cancelledStep(world: PausingAccount, step: Step, onSent = (_signal: string) => {}) {
  const plan = bufferIO({ env: world.env, cwd: world.dir });
  expect(await run(["plan", "-o", "plan.json"], plan), plan.err()).toBe(0);
  const machine = mkdtempSync(join(tmpdir(), "doohctl-runner-"));
  let cancel: ReturnType<typeof cancelLikeGitHub> | undefined;
  const job = await runWorkflowJob({
    workflow: {
      defaults: { run: { shell: "bash" } },
      jobs: { apply: { steps: [{ ...step, id: "apply" }] } },
    },
    job: "apply",
    github: {
      event_name: "push",
      sha: "0".repeat(40),
      ref: "refs/heads/main",
      repository: "o/r",
      run_id: "1",
    },
    secrets: {},
    vars: {},
    machineEnv: {
      PATH: `${fakeInstallBin(machine)}:${process.env.PATH ?? ""}`,
      NO_COLOR: "1",
      ...world.env,
      DOOHCTL_API_ORIGIN: world.origin,
    },
    workspace: world.dir,
    temp: join(machine, "temp"),
    fakes: {},
    onSpawn: (_id, child, exited) => {
      world.emulator.onWrite((entry) => {
        if (entry.method === "PUT" && cancel === undefined)
          cancel = cancelLikeGitHub(child, exited, { onSent });
      });
    },
  });
  if (cancel === undefined) throw new Error(`the step ended before its first targeting PUT:\n${job.log}`);
  const ran = job.step("apply");
  return {
    sent: (await cancel).sent,
    code: ran.exitCode,
    log: ran.log ?? "",
    file: join(world.dir, "apply.txt"),
  };
}

/** The account of paused-account.ts, closed when the test ends. */
async function account(
  onTestFinished: (fn: () => Promise<void>) => void,
  options: { onRequest?: OnRequest } = {},
) {
  const world = await pausingAccount(20, options);
  onTestFinished(() => world.close());
  return world;
}

/**
 * What the recipe promises whichever signals came: doohctl stopped, reactivated and reported;
 * the step ends with its code, 130 (the first signal was SIGINT); the report is in the step's
 * log and, through tee, in apply.txt byte for byte; every campaign serves again and no write
 * broke an invariant on the way (world.ts).
 */
function expectStoppedAndRestored(world: PausingAccount, step: Awaited<ReturnType<typeof cancelledStep>>) {
  expect(step.code, step.log).toBe(130);
  expect(step.log).toContain("SIGINT: no further change is sent; reactivating what this apply paused");
  expect(step.log).toMatch(/^Apply interrupted after \d+ of \d+ requests\./m);
  expect(readFileSync(step.file, "utf8")).toBe(step.log);
  expect(world.inactive()).toEqual([]);
  expect(world.violations).toEqual([]);
}

const isReactivation = (body: string) => /"active":\s*true/.test(body);

describe("the recipe", () => {
  it("is the one examples/github/doohctl-apply.yml gives for a run: step of your own", () => {
    const example = readFileSync(join(ROOT, "examples", "github", "doohctl-apply.yml"), "utf8");
    const lines = (recipe().run ?? "").trimEnd().split("\n");
    expect(lines).toEqual([
      "exec > >(tee apply.txt) 2>&1",
      "exec doohctl apply --plan plan.json --auto-approve",
    ]);
    for (const line of lines) expect(example).toContain(`      #     ${line}\n`);
  });
});

describe.concurrent("a run: step that applies, cancelled the way a GitHub runner cancels it", () => {
  it("docs/ci.md's recipe: doohctl stops, reactivates, exits 130; the report is in the log and in apply.txt", async ({
    onTestFinished,
  }) => {
    const world = await account(onTestFinished);
    const step = await cancelledStep(world, recipe());
    expect(step.sent, step.log).toEqual(["SIGINT"]);
    expectStoppedAndRestored(world, step);
  }, 60_000);

  it("docs/ci.md's recipe, the reactivation held past the SIGTERM: SIGTERM ignored, every campaign active, exit 130", async ({
    onTestFinished,
  }) => {
    let sigtermSent: () => void = () => {};
    const afterSigterm = new Promise<void>((resolve) => {
      sigtermSent = () => setTimeout(resolve, 300);
    });
    // The DSP holds the reactivation until the runner's SIGTERM has been sent.
    const onRequest: OnRequest = (request, response, forward) => {
      void readBody(request).then(async (body) => {
        if (request.method === "PATCH" && isReactivation(body.toString())) await afterSigterm;
        relay(await forward(body), response);
      });
    };
    const world = await account(onTestFinished, { onRequest });
    const step = await cancelledStep(world, recipe(), (signal) => {
      if (signal === "SIGTERM") sigtermSent();
    });
    expect(step.sent, step.log).toEqual(["SIGINT", "SIGTERM"]);
    expect(step.log).toMatch(/SIGTERM ignored: reactivating the campaigns this apply paused first/);
    expectStoppedAndRestored(world, step);
  }, 60_000);

  it("a plain `doohctl apply | tee apply.txt`: doohctl never hears the cancel and applies every change after it (exit 0)", async ({
    onTestFinished,
  }) => {
    const world = await account(onTestFinished);
    const step = await cancelledStep(world, PLAIN_TEE);
    expect(step.sent, step.log).toEqual(["SIGINT"]);
    expect(step.code, step.log).toBe(0);
    expect(step.log).not.toContain("SIGINT");
    expect(step.log).toMatch(/^Apply complete\./m);
    expect(world.inactive()).toEqual([]);
    // Every change went in: the cancelled run's plan holds nothing more to do.
    const check = bufferIO({ env: world.env, cwd: world.dir });
    expect(await run(["plan", "--detailed-exitcode"], check), check.out()).toBe(0);
  }, 60_000);
});
