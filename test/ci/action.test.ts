/**
 * action.yml run the way a GitHub runner runs a composite action (issue 24, finding 1): every
 * `run:` step as `bash --noprofile --norc -eo pipefail FILE` with its `${{ }}` evaluated and
 * the runner's files, the `uses:` steps by named fakes (test/helpers/composite-action.ts), the
 * built doohctl against the emulator. With `ok-exit-codes: "0 2"` an exit 2 is success with
 * every output written; an exit 1 fails the action with its outputs written and the failure
 * commented; the runner's cancel sequence reaches doohctl, which restores delivery.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { doohctlBuiltByAction } from "../helpers/action-build.js";
import { ADVERTISER, PUBLISHERS, seedCampaign, seedIo, VENUES_A } from "../helpers/builders.js";
import { accountConfig, loginEnv, startCliAccount } from "../helpers/cli-account.js";
import { type ActionYaml, runComposite } from "../helpers/composite-action.js";
import { githubScriptFake } from "../helpers/github-script-fake.js";
import { type InterceptingProxy, interceptingProxy, readBody, relay } from "../helpers/proxy.js";
import { cancelLikeGitHub } from "../helpers/runner-cancel.js";
import { USER } from "../helpers/users.js";
import { ensureBuilt, MAIN, ROOT } from "../proof/binary.js";

const ACTION = parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as ActionYaml;
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const CAMPAIGNS = ["Malls", "Stations", "Airports"];

beforeAll(() => {
  ensureBuilt();
  // The install step reinstalls (npm ci) unless `doohctl --version` is the action's version.
  expect(execFileSync(process.execPath, [MAIN, "--version"], { encoding: "utf8" }).trim()).toBe(VERSION);
}, 180_000);

let emulator: RunningEmulator | undefined;
let proxy: InterceptingProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await emulator?.close();
  proxy = undefined;
  emulator = undefined;
});

/**
 * Three active campaigns each losing their publisher exclusion (`active` left out), a workspace
 * whose `doohctl.yaml` aims at the emulator (through `hold`'s proxy when given), and `doohctl`
 * on PATH as the built CLI.
 */
async function workspace(hold?: (body: string) => Promise<void>) {
  emulator = (
    await startCliAccount({
      seed: {
        users: [USER],
        advertisers: [ADVERTISER],
        insertion_orders: [seedIo("1001")],
        campaigns: CAMPAIGNS.map((name, i) => seedCampaign(String(5001 + i), "1001", name, { active: true })),
        targetings: Object.fromEntries(CAMPAIGNS.map((_, i) => [String(5001 + i), [VENUES_A, PUBLISHERS]])),
      },
    })
  ).emulator;
  const target = emulator.origin;
  proxy = await interceptingProxy(target, {
    onRequest: (request, response, forward) => {
      void readBody(request).then(async (body) => {
        await hold?.(`${request.method} ${body.toString()}`);
        relay(await forward(body), response);
      });
    },
  });
  const dir = mkdtempSync(join(tmpdir(), "doohctl-action-"));
  const work = join(dir, "work");
  const bin = join(dir, "bin");
  mkdirSync(work);
  mkdirSync(bin);
  writeFileSync(
    join(work, "doohctl.yaml"),
    accountConfig(proxy.origin, [
      '  - id: "1001"',
      "    campaigns:",
      ...CAMPAIGNS.flatMap((name) => [
        `      - name: ${name}`,
        '        targetings: [{ venue_targeting_option: { venue_targeting_ids: ["101", "102"] } }]',
      ]),
    ]),
  );
  doohctlBuiltByAction(bin);
  const env = {
    ...loginEnv(USER, dir),
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    NO_COLOR: "1",
    DOOHCTL_API_ORIGIN: proxy.origin,
  };
  const inactive = () =>
    emulator!
      .state()
      .campaigns.filter((c) => !c.active)
      .map((c) => c.name);
  return { dir, work, env, inactive };
}

async function runAction(
  world: Awaited<ReturnType<typeof workspace>>,
  inputs: Record<string, string>,
  more: Pick<Parameters<typeof runComposite>[0], "onSpawn" | "cancelled"> = {},
) {
  const comments = githubScriptFake();
  const result = await runComposite({
    action: ACTION,
    with: { "working-directory": "work", ...inputs },
    env: world.env,
    github: { action_path: ROOT, token: "t", run_attempt: "1" },
    workspace: world.dir,
    temp: join(world.dir, "runner-temp"),
    fakes: {
      "actions/setup-node@v4": async () => ({}),
      "actions/cache/restore@v4": async () => ({}),
      "actions/github-script@v7": comments.fake,
    },
    ...more,
  });
  const step = (id: string) => result.steps.find((s) => s.id === id)!;
  return { result, step, comments };
}

describe("action.yml under the runner's bash", () => {
  it("passes every input to its scripts through env:, never as expression text inside a run: script", () => {
    const runs = ACTION.runs.steps.filter((s) => s.run !== undefined);
    expect(runs.length).toBeGreaterThan(0);
    for (const step of runs) {
      expect(step.shell, step.name).toBe("bash");
      expect(step.run, step.name).not.toContain("$" + "{{");
    }
  });

  it('with ok-exit-codes "0 2", plan --detailed-exitcode exiting 2 succeeds with its outputs and comment', async () => {
    const world = await workspace();
    const { result, step, comments } = await runAction(world, {
      command: "plan --detailed-exitcode",
      "ok-exit-codes": "0 2",
      "pr-number": "7",
    });
    expect(step("install").log).toMatch(new RegExp(`doohctl ${VERSION} \\(build \\w+\\) is installed`));
    expect(step("run").outcome, step("run").log).toBe("success");
    expect(step("run").outputs).toMatchObject({ "exit-code": "2", ok: "true" });
    expect(readFileSync(step("run").outputs["stdout-file"]!, "utf8")).toContain("Malls");
    expect(result.outputs["exit-code"]).toBe("2");
    expect(result.status).toBe("success");
    expect(comments.created).toHaveLength(1);
    expect(comments.created[0]?.body).toContain("<!-- doohctl:plan -->");
    expect(comments.created[0]?.body).toContain("Malls");
    expect(result.steps.at(-1)?.outcome).toBe("skipped");
  }, 60_000);

  it("a doohctl exit 1 fails the action, with its outputs written and the error commented", async () => {
    const world = await workspace();
    const { result, step, comments } = await runAction(world, {
      command: "plan missing.yaml",
      "pr-number": "7",
      comment: "failure",
    });
    expect(step("run").outputs).toMatchObject({ "exit-code": "1", ok: "false" });
    expect(readFileSync(step("run").outputs["stderr-file"]!, "utf8")).toContain("missing.yaml");
    expect(result.outputs["exit-code"]).toBe("1");
    expect(result.steps.at(-1)).toMatchObject({ outcome: "failure", exitCode: 1 });
    expect(result.status).toBe("failure");
    expect(comments.created[0]?.body).toContain("`doohctl plan missing.yaml` failed (exit 1)");
  }, 60_000);

  it("runs no input as shell code: $(...) and backquotes in inputs stay text", async () => {
    const world = await workspace();
    const hostile = (name: string) =>
      `$(touch ${join(world.dir, name)}) \`touch ${join(world.dir, `${name}-bq`)}\``;
    const { step, comments } = await runAction(world, {
      command: "plan",
      "ok-exit-codes": `0 ${hostile("ok-codes")}`,
      "pr-number": "7",
      "comment-title": hostile("title"),
      "comment-key": hostile("key"),
    });
    expect(step("run").outputs).toMatchObject({ "exit-code": "0", ok: "true" });
    expect(comments.created[0]?.body).toContain(`### ${hostile("title")}`);
    for (const name of ["ok-codes", "title", "key"]) {
      expect(existsSync(join(world.dir, name))).toBe(false);
      expect(existsSync(join(world.dir, `${name}-bq`))).toBe(false);
    }
  }, 60_000);

  it("relays the runner's cancel sequence to doohctl apply, which restores delivery; outputs written", async () => {
    let sigtermSent: () => void = () => {};
    const afterSigterm = new Promise<void>((resolve) => {
      sigtermSent = () => setTimeout(resolve, 300);
    });
    // The DSP holds the reactivation until the runner's SIGTERM was sent: it must not cut it off.
    const world = await workspace(async (request) => {
      if (request.startsWith("PATCH") && /"active":\s*true/.test(request)) await afterSigterm;
    });
    let cancel: ReturnType<typeof cancelLikeGitHub> | undefined;
    const { result, step } = await runAction(
      world,
      { command: "apply --auto-approve", "pr-number": "7" },
      {
        onSpawn: (id, child, exited) => {
          if (id !== "run") return;
          let started = false;
          emulator!.onWrite((entry) => {
            if (entry.method !== "PUT" || started) return;
            started = true;
            cancel = cancelLikeGitHub(child, exited, {
              onSent: (signal) => {
                if (signal === "SIGTERM") sigtermSent();
              },
            });
          });
        },
        cancelled: () => cancel !== undefined,
      },
    );
    const log = step("run").log ?? "";
    expect((await cancel!).sent, log).toEqual(["SIGINT", "SIGTERM"]);
    expect(log).toMatch(/doohctl action: INT received, passed on to doohctl/);
    expect(log).toMatch(/doohctl action: TERM received, passed on to doohctl/);
    expect(log).toContain("SIGINT: no further change is sent; reactivating what this apply paused");
    expect(log).toContain("SIGTERM ignored: reactivating the campaigns this apply paused first");
    expect(world.inactive()).toEqual([]);
    expect(step("run").outputs).toMatchObject({ "exit-code": "130", ok: "false" });
    expect(result.status).toBe("cancelled");
  }, 60_000);

  it("a SIGINT to the step's whole process group leaves its tees logging: delivery restored, exit 130, outputs whole", async () => {
    const world = await workspace();
    let signalled = false;
    const { step } = await runAction(
      world,
      { command: "apply --auto-approve" },
      {
        onSpawn: (id, child) => {
          if (id !== "run") return;
          emulator!.onWrite((entry) => {
            if (entry.method !== "PUT" || signalled) return;
            signalled = true;
            // As GitLab's runner cancels, or Ctrl-C where the step runs on a terminal.
            process.kill(-(child.pid as number), "SIGINT");
          });
        },
        cancelled: () => signalled,
      },
    );
    expect(signalled).toBe(true);
    const log = step("run").log ?? "";
    expect(step("run").outputs, log).toMatchObject({ "exit-code": "130", ok: "false" });
    expect(world.inactive()).toEqual([]);
    // The tees outlived the signal: the report written after the restore reached both files.
    expect(readFileSync(step("run").outputs["stdout-file"]!, "utf8")).toMatch(/^Apply interrupted after/m);
    expect(readFileSync(step("run").outputs["stderr-file"]!, "utf8")).toContain(
      "SIGINT: no further change is sent; reactivating what this apply paused",
    );
  }, 60_000);
});
