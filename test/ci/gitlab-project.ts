/**
 * A GitLab project for examples/gitlab/.gitlab-ci.yml's tests: a git repository on disk whose
 * merge requests are branches merged with a merge commit, the recording GitLab API
 * (gitlab-api-fake.ts), the CI/CD variables as the example asks for them, the emulator with
 * the write user and the read-only plan user, and one call per job (gitlab-job.ts). The
 * before_script's `npm install --prefix DIR` is a fake `npm` that installs this checkout as
 * DIR/node_modules/doohctl (a link) with its bin, as the real install lays it out.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { type GitLabFake, gitlabFake } from "../helpers/gitlab-api-fake.js";
import { type GitLabCiYaml, type ProjectVariable, runGitLabJob } from "../helpers/gitlab-job.js";
import { READER, USER } from "../helpers/users.js";
import { ROOT } from "../proof/binary.js";
import { campaignsConfig, fakeInstallBin, gitIn, startCiEmulator } from "./ci-account.js";

const CI = parse(readFileSync(join(ROOT, "examples", "gitlab", ".gitlab-ci.yml"), "utf8")) as GitLabCiYaml;

export interface GitLabProject {
  emulator: RunningEmulator;
  gitlab: GitLabFake;
  variables: ProjectVariable[];
  /** Commits `budgets` (or `text` as the config) on branch `mr-IID` off main; opens the MR. */
  openMergeRequest(iid: number, budgets: Record<string, number>, text?: string): string;
  merge(iid: number): string;
  main(): string;
  /**
   * An apply job on main that succeeded at `sha`, in the jobs list where the next apply job
   * finds the last applied commit: for a test that starts where main is applied without running
   * that job (gitlab-jobs.test.ts runs one by hand first).
   */
  appliedAt(sha: string): void;
  budgets(): Record<string, number>;
  /** The names of the campaigns inactive in the DSP, sorted. */
  inactive(): string[];
  writes(): number;
  /** Runs job `name` of a pipeline: `mr` (a merge request's), `push` or `web` on main, `schedule`. */
  run(
    name: "plan" | "apply" | "drift",
    pipeline: { source: "merge_request_event" | "push" | "web" | "schedule"; iid?: number; sha?: string },
    options?: {
      onSpawn?: Parameters<typeof runGitLabJob>[0]["onSpawn"];
      /** A merged-results pipeline: the merged result is made, and checked out, from main's HEAD. */
      mergedResult?: boolean;
    },
  ): ReturnType<typeof runGitLabJob>;
  close(): Promise<void>;
}

export async function gitlabProject(options: { targetings?: boolean } = {}): Promise<GitLabProject> {
  const emulator = await startCiEmulator(options);
  const gitlab = await gitlabFake();
  const dir = mkdtempSync(join(tmpdir(), "doohctl-gitlab-"));
  const repo = join(dir, "repo");
  const git = (...args: string[]) => gitIn(repo, ...args);
  mkdirSync(join(repo, "campaigns"), { recursive: true });
  const config = (budgets: Record<string, number>) => campaignsConfig(emulator.origin, budgets);
  writeFileSync(join(repo, "campaigns", "doohctl.yaml"), config({}));
  git("init", "-q", "-b", "main");
  git("add", ".");
  git("commit", "-q", "-m", "campaigns as code");

  const bin = fakeInstallBin(dir);
  const variables: ProjectVariable[] = [
    { key: "DOOHCTL_PLAN_EMAIL", value: READER.email },
    { key: "DOOHCTL_PLAN_PASSWORD", value: READER.password },
    { key: "DOOHCTL_EMAIL", value: USER.email, protected: true, environment_scope: "production" },
    { key: "DOOHCTL_PASSWORD", value: USER.password, protected: true, environment_scope: "production" },
    { key: "GITLAB_API_TOKEN", value: "glpat-test" },
    { key: "DOOHCTL_API_ORIGIN", value: emulator.origin },
  ];
  let jobs = 0;
  let pipelines = 500;
  const diffBase = new Map<number, string>();

  return {
    emulator,
    gitlab,
    variables,
    openMergeRequest(iid, budgets, text) {
      git("checkout", "-q", "-B", `mr-${iid}`, "main");
      diffBase.set(iid, git("rev-parse", "HEAD"));
      const now = parse(git("show", "main:campaigns/doohctl.yaml")) as {
        insertion_orders: { campaigns: { name: string; budget_impressions: number }[] }[];
      };
      const live = Object.fromEntries(
        now.insertion_orders[0]!.campaigns.map((c) => [c.name, c.budget_impressions]),
      );
      writeFileSync(join(repo, "campaigns", "doohctl.yaml"), text ?? config({ ...live, ...budgets }));
      git("commit", "-q", "-am", `merge request !${iid}`);
      gitlab.mergeRequests.push({ iid, state: "opened", pipelines: [] });
      git("checkout", "-q", "main");
      return git("rev-parse", `mr-${iid}`);
    },
    merge(iid) {
      git("checkout", "-q", "main");
      git("merge", "-q", "--no-ff", "-m", `Merge branch 'mr-${iid}' into 'main'`, `mr-${iid}`);
      const sha = git("rev-parse", "HEAD");
      const mr = gitlab.mergeRequests.find((m) => m.iid === iid)!;
      mr.state = "merged";
      mr.merge_commit_sha = sha;
      return sha;
    },
    main: () => git("rev-parse", "main"),
    appliedAt(sha) {
      gitlab.jobs.push({
        id: gitlab.nextJobId(),
        name: "apply",
        ref: "main",
        status: "success",
        commit: { id: sha },
        pipeline: { id: ++pipelines },
        artifacts: {},
      });
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
    async run(name, pipeline, options = {}) {
      const id = ++jobs;
      const pipelineId = ++pipelines;
      const checkout = join(dir, "jobs", String(id), "build");
      mkdirSync(join(dir, "jobs", String(id)), { recursive: true });
      const mr = pipeline.source === "merge_request_event";
      let sha = pipeline.sha ?? (mr ? git("rev-parse", `mr-${pipeline.iid}`) : git("rev-parse", "main"));
      const target = git("rev-parse", "main");
      if (options.mergedResult) {
        git("checkout", "-q", "--detach", "main");
        git("merge", "-q", "--no-ff", "-m", `Merged result of !${pipeline.iid}`, `mr-${pipeline.iid}`);
        sha = git("rev-parse", "HEAD");
        git("checkout", "-q", "main");
      }
      execFileSync("git", ["clone", "-q", "--no-checkout", repo, checkout]);
      execFileSync("git", ["checkout", "-q", "--detach", sha], { cwd: checkout });
      if (mr) gitlab.mergeRequests.find((m) => m.iid === pipeline.iid)?.pipelines.unshift(pipelineId);
      const branch = mr ? `mr-${pipeline.iid}` : "main";
      return runGitLabJob({
        ci: CI,
        name,
        gitlab,
        dir: checkout,
        predefined: {
          CI_PIPELINE_SOURCE: pipeline.source,
          CI_COMMIT_SHA: sha,
          CI_COMMIT_REF_NAME: branch,
          CI_DEFAULT_BRANCH: "main",
          ...(mr
            ? {
                CI_MERGE_REQUEST_IID: String(pipeline.iid),
                CI_MERGE_REQUEST_DIFF_BASE_SHA: diffBase.get(pipeline.iid ?? 0) ?? "",
                ...(options.mergedResult
                  ? {
                      CI_MERGE_REQUEST_EVENT_TYPE: "merged_result",
                      CI_MERGE_REQUEST_TARGET_BRANCH_SHA: target,
                    }
                  : {}),
              }
            : { CI_COMMIT_BRANCH: "main" }),
        },
        project: variables,
        protectedRef: !mr,
        machineEnv: {
          PATH: `${bin}:${process.env.PATH ?? ""}`,
          HOME: join(dir, "jobs", String(id)),
          NO_COLOR: "1",
        },
        pipelineId,
        ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
      });
    },
    async close() {
      await gitlab.close();
      await emulator.close();
    },
  };
}
