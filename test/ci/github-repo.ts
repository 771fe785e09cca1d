/**
 * A GitHub repository for the example workflows' tests: a bare `origin` on disk, a developer
 * clone that merges pull requests the way GitHub does (a `refs/pull/N/merge` commit to plan,
 * a merge commit on main when merged), the recording GitHub API and `gh` (github-fakes.ts),
 * the emulator with the write user and the read-only plan user, and one call per workflow run.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { Endpoints } from "../../src/api/endpoints.js";
import { RecoveryStore } from "../../src/apply/recovery.js";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { doohctlBuiltByAction } from "../helpers/action-build.js";
import type { UsesFake } from "../helpers/composite-action.js";
import { type GitHubFake, githubFake, workflowFakes } from "../helpers/github-fakes.js";
import { READER, USER } from "../helpers/users.js";
import { runWorkflowJob, type WorkflowYaml } from "../helpers/workflow-job.js";
import { colleagueClient } from "../helpers/world.js";
import { ROOT } from "../proof/binary.js";
import { campaignsConfig, gitIn, originAndDev, startCiEmulator } from "./ci-account.js";

export { CAMPAIGNS } from "./ci-account.js";

const workflow = (name: string) =>
  parse(readFileSync(join(ROOT, "examples", "github", `doohctl-${name}.yml`), "utf8")) as WorkflowYaml;

export interface GitHubRepo {
  emulator: RunningEmulator;
  github: GitHubFake;
  origin: string;
  /**
   * Commits budgets (impressions by campaign name) on a new branch off main and opens pull
   * request `pr`; `first`, when given, is an earlier commit of the branch.
   */
  openPullRequest(pr: number, budgets: Record<string, number>, first?: Record<string, number>): string;
  /** Commits `config` as the whole campaigns config on a new branch off main, as pull request `pr`. */
  openPullRequestWith(pr: number, config: string): string;
  /** GitHub's merge commit of the pull request into main as it is now: what `pull_request` runs check out. */
  mergeRef(pr: number): string;
  /** The merge button: a merge commit on main, or the branch's commits rebased onto it. */
  merge(pr: number, how?: "merge" | "rebase"): string;
  applied(): string | undefined;
  /**
   * Records `sha` as applied, the ref a successful apply run pushes: for a test that starts
   * where main is applied without running that first manual run (apply-workflow.test.ts runs it).
   */
  appliedAt(sha: string): void;
  /** main's HEAD in origin. */
  main(): string;
  /** The cache entries saved so far, oldest first (actions/cache/save's keys). */
  cacheKeys(): string[];
  budgets(): Record<string, number>;
  /** The names of the campaigns inactive in the DSP, sorted. */
  inactive(): string[];
  writes(): number;
  /** A change made in the DSP's web UI: campaign `id` patched by the write user. */
  outOfBand(id: string, change: { budget_impressions?: number; active?: boolean }): Promise<void>;
  /** A recovery record naming campaign `id` as paused by an interrupted apply, in the state cache. */
  recordPause(id: string, name: string): void;
  /** A file as branch `branch` of origin holds it, or undefined without that branch. */
  show(branch: string, path: string): string | undefined;
  run(
    name: "plan" | "apply" | "drift",
    event: { name: "push" | "pull_request" | "workflow_dispatch" | "schedule"; sha: string; pr?: number },
    /** Repository variables replacing the defaults (the API origin, the plan user). */
    vars?: Record<string, string>,
    /** Given the `uses:` fakes, the ones this run uses (to stand in for a step's outcome). */
    fakes?: (given: Record<string, UsesFake>) => Record<string, UsesFake>,
    /** Secrets replacing the defaults (an empty value: the secret is not set). */
    secrets?: Record<string, string>,
    /** How the runner treats the doohctl Action's steps (to cancel one: github-fakes.ts). */
    action?: Parameters<typeof workflowFakes>[0]["action"],
  ): ReturnType<typeof runWorkflowJob>;
  close(): Promise<void>;
}

export async function githubRepo(options: { targetings?: boolean } = {}): Promise<GitHubRepo> {
  const emulator = await startCiEmulator(options);
  const dir = mkdtempSync(join(tmpdir(), "doohctl-workflow-"));
  const github = await githubFake(dir);
  const { origin, dev } = originAndDev(dir);
  const git = gitIn;
  const config = (budgets: Record<string, number>) => campaignsConfig(emulator.origin, budgets);
  mkdirSync(join(dev, "campaigns"));
  writeFileSync(join(dev, "campaigns", "doohctl.yaml"), config({}));
  git(dev, "add", ".");
  git(dev, "commit", "-q", "-m", "campaigns as code");
  git(dev, "push", "-q", "origin", "main");

  const bin = join(dir, "bin");
  mkdirSync(bin);
  doohctlBuiltByAction(bin);
  const cache = new Map<string, string>();
  let runs = 0;

  const mergeInto = (pr: number, message: string) => {
    git(dev, "fetch", "-q", "origin", "main");
    git(dev, "checkout", "-q", "--detach", "origin/main");
    git(dev, "merge", "-q", "--no-ff", "-m", message, `pr-${pr}`);
    return git(dev, "rev-parse", "HEAD");
  };

  /** Commits `budgets` over the branch's config. */
  const commitBudgets = (pr: number, budgets: Record<string, number>) => {
    const live = parse(git(dev, "show", "HEAD:campaigns/doohctl.yaml")) as {
      insertion_orders: { campaigns: { name: string; budget_impressions: number }[] }[];
    };
    const now = Object.fromEntries(
      live.insertion_orders[0]!.campaigns.map((c) => [c.name, c.budget_impressions]),
    );
    writeFileSync(join(dev, "campaigns", "doohctl.yaml"), config({ ...now, ...budgets }));
    git(dev, "commit", "-q", "-am", `pull request #${pr}: ${Object.keys(budgets).join(", ")}`);
    return git(dev, "rev-parse", "HEAD");
  };

  return {
    emulator,
    github,
    origin,
    openPullRequest(pr, budgets, first) {
      git(dev, "fetch", "-q", "origin", "main");
      git(dev, "checkout", "-q", "-B", `pr-${pr}`, "origin/main");
      if (first) commitBudgets(pr, first);
      return commitBudgets(pr, budgets);
    },
    openPullRequestWith(pr, text) {
      git(dev, "fetch", "-q", "origin", "main");
      git(dev, "checkout", "-q", "-B", `pr-${pr}`, "origin/main");
      writeFileSync(join(dev, "campaigns", "doohctl.yaml"), text);
      git(dev, "commit", "-q", "-am", `pull request #${pr}`);
      return git(dev, "rev-parse", "HEAD");
    },
    mergeRef(pr) {
      const sha = mergeInto(pr, `Merge ${pr} into main (GitHub's merge ref)`);
      git(dev, "push", "-q", "-f", "origin", `${sha}:refs/pull/${pr}/merge`);
      return sha;
    },
    merge(pr, how = "merge") {
      let sha: string;
      if (how === "rebase") {
        git(dev, "fetch", "-q", "origin", "main");
        git(dev, "checkout", "-q", `pr-${pr}`);
        git(dev, "rebase", "-q", "origin/main");
        sha = git(dev, "rev-parse", "HEAD");
      } else sha = mergeInto(pr, `Merge pull request #${pr}`);
      git(dev, "push", "-q", "origin", `${sha}:refs/heads/main`);
      github.pulls.set(sha, pr);
      return sha;
    },
    main: () => git(origin, "rev-parse", "main"),
    async outOfBand(id, change) {
      await colleagueClient(emulator.origin, USER).send(Endpoints.patchCampaigns([{ id, ...change }]));
    },
    recordPause(id, name) {
      const state = join(dir, `state-${cache.size}`);
      const scope = { origin: emulator.origin, environment: "production", account_id: USER.account_id };
      new RecoveryStore(state, scope)
        .begin("2026-11-23T10:00:00.000Z")
        .add([{ campaign_id: id, insertion_order_id: "1001", name, paused_at: "2026-11-23T10:00:00.000Z" }]);
      cache.set(`doohctl-state-default-seeded-${cache.size}`, state);
    },
    show(branch, path) {
      try {
        return git(origin, "show", `${branch}:${path}`);
      } catch {
        return undefined;
      }
    },
    cacheKeys: () => [...cache.keys()],
    appliedAt: (sha) => void git(origin, "update-ref", "refs/doohctl/applied/default", sha),
    applied() {
      try {
        return git(origin, "rev-parse", "--verify", "-q", "refs/doohctl/applied/default");
      } catch {
        return undefined;
      }
    },
    budgets: () =>
      Object.fromEntries(emulator.state().campaigns.map((c) => [c.name, c.budget_impressions as number])),
    inactive: () =>
      emulator
        .state()
        .campaigns.filter((c) => !c.active)
        .map((c) => c.name)
        .sort(),
    writes: () =>
      emulator.requestLog().filter((e) => e.method !== "GET" && !e.path.endsWith("/session")).length,
    async run(name, event, vars, fakes = (given) => given, secrets = {}, action = undefined) {
      const id = ++runs;
      const workspace = join(dir, "runs", String(id), "ws");
      const temp = join(dir, "runs", String(id), "temp");
      mkdirSync(workspace, { recursive: true });
      mkdirSync(temp, { recursive: true });
      const pullRequest = event.pr === undefined ? {} : { pull_request: { number: event.pr } };
      return runWorkflowJob({
        workflow: workflow(name),
        job: name,
        github: {
          event_name: event.name,
          sha: event.sha,
          ref: event.name === "pull_request" ? `refs/pull/${event.pr}/merge` : "refs/heads/main",
          base_ref: event.name === "pull_request" ? "main" : "",
          repository: "o/r",
          run_id: String(1000 + id),
          token: "t",
          event: { repository: { default_branch: "main" }, ...pullRequest },
        },
        secrets: {
          DOOHCTL_EMAIL: USER.email,
          DOOHCTL_PASSWORD: USER.password,
          DOOHCTL_PLAN_EMAIL: READER.email,
          DOOHCTL_PLAN_PASSWORD: READER.password,
          DOOHCTL_PULL_TOKEN: "github_pat_test",
          ...secrets,
        },
        vars: vars ?? { DOOHCTL_API_ORIGIN: emulator.origin, DOOHCTL_PLAN_USER: READER.email },
        machineEnv: {
          PATH: `${github.bin}:${bin}:${process.env.PATH ?? ""}`,
          HOME: join(dir, "runs", String(id)),
          NO_COLOR: "1",
          GH_FAKE_URL: github.origin,
        },
        workspace,
        temp,
        fakes: fakes(
          workflowFakes({
            github,
            origin,
            sha: event.sha,
            runId: 1000 + id,
            workspace,
            temp,
            cache,
            ...(action ? { action } : {}),
          }),
        ),
      });
    },
    async close() {
      await github.close();
      await emulator.close();
    },
  };
}
