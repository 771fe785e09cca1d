/**
 * A GitLab project of several DSP accounts for examples/gitlab/doohctl-accounts.gitlab-ci.yml:
 * the repository on disk with one directory per account under accounts/, one emulator per
 * account (ci-accounts.ts), the recording GitLab API, the CI/CD variables the file's header
 * asks for (plan users unprotected, write users protected and scoped to doohctl-<account>),
 * and one merge request pipeline run as GitLab runs it: the `accounts` job, then the child
 * pipeline it generated (`extends:` resolved, `parallel: matrix` expanded into one job per
 * entry, refused when it holds no job, as GitLab refuses it), its plan stage side by side and
 * its note stage with the plan stage's artifacts, each job through gitlab-job.ts.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parse } from "yaml";
import type { RunningEmulator } from "../../src/emulator/index.js";

import { type GitLabFake, gitlabFake } from "../helpers/gitlab-api-fake.js";
import {
  type GitLabCiYaml,
  type GitLabJobRun,
  type ProjectVariable,
  runGitLabJob,
} from "../helpers/gitlab-job.js";
import { READER, USER } from "../helpers/users.js";
import { ROOT } from "../proof/binary.js";
import { fakeInstallBin, gitIn } from "./ci-account.js";
import { accountFile, budgetChanges, prefixOf, startAccountEmulators, userOf } from "./ci-accounts.js";

const PARENT = parse(
  readFileSync(join(ROOT, "examples", "gitlab", "doohctl-accounts.gitlab-ci.yml"), "utf8"),
) as GitLabCiYaml;

interface ChildJob {
  extends?: string;
  stage?: string;
  parallel?: { matrix: Record<string, string>[] };
  variables?: Record<string, string>;
  [key: string]: unknown;
}

export interface ChildPipelineJob {
  name: string;
  stage: string;
  account?: string;
  run: GitLabJobRun;
}

export interface MergeRequestPipeline {
  accounts: GitLabJobRun;
  /** The child pipeline's YAML as the accounts job wrote it. */
  child: string;
  jobs: ChildPipelineJob[];
  job(name: string, account?: string): ChildPipelineJob;
}

const RESERVED = new Set(["stages", "variables", "default", "include", "workflow"]);

/** The child pipeline's jobs in stage order: `extends` merged, a matrix expanded as GitLab names its jobs. */
export function childJobs(text: string): {
  ci: GitLabCiYaml;
  jobs: { name: string; stage: string; account?: string }[];
} {
  const doc = parse(text) as Record<string, unknown>;
  const topVariables = doc.variables as Record<string, string> | undefined;
  const ci: GitLabCiYaml = {};
  if (doc.default) ci.default = doc.default as NonNullable<GitLabCiYaml["default"]>;
  const jobs: { name: string; stage: string; account?: string }[] = [];
  for (const [key, raw] of Object.entries(doc)) {
    if (RESERVED.has(key) || key.startsWith(".")) continue;
    const value = raw as ChildJob;
    const base = value.extends ? (doc[value.extends] as ChildJob | undefined) : {};
    if (value.extends && !base)
      throw new Error(`GitLab: job ${key} extends ${value.extends}, which is not defined`);
    const { extends: _, ...own } = value;
    const merged: ChildJob = {
      ...base,
      ...own,
      variables: { ...topVariables, ...base?.variables, ...own.variables },
    };
    const script = merged.script as unknown[] | undefined;
    if (!Array.isArray(script) || script.some((line) => typeof line !== "string"))
      throw new Error(
        `GitLab refuses the child pipeline: jobs:${key}:script config should be a string or a nested array of strings`,
      );
    const stage = merged.stage ?? "test";
    const { parallel, ...spec } = merged;
    if (!parallel) {
      ci[key] = spec;
      jobs.push({ name: key, stage });
      continue;
    }
    for (const entry of parallel.matrix) {
      const name = `${key}: [${Object.values(entry).join(", ")}]`;
      const variables = { ...spec.variables, ...entry };
      // GitLab expands the job's variables in `environment` and `resource_group`.
      const expand = (value: unknown) =>
        typeof value === "string"
          ? value.replace(/\$\{?(\w+)\}?/g, (_, v: string) => variables[v] ?? "")
          : value;
      ci[name] = {
        ...spec,
        variables,
        ...(spec.environment ? { environment: expand(spec.environment) } : {}),
        ...(spec.resource_group ? { resource_group: expand(spec.resource_group) } : {}),
      };
      jobs.push({ name, stage, ...(entry.DOOHCTL_ACCOUNT ? { account: entry.DOOHCTL_ACCOUNT } : {}) });
    }
  }
  if (jobs.length === 0) throw new Error("GitLab refuses the child pipeline: it holds no job");
  const stages = (doc.stages as string[] | undefined) ?? ["build", "test", "deploy"];
  jobs.sort((a, b) => stages.indexOf(a.stage) - stages.indexOf(b.stage));
  return { ci, jobs };
}

export interface AccountsProject {
  accounts: string[];
  emulators: Record<string, RunningEmulator>;
  gitlab: GitLabFake;
  variables: ProjectVariable[];
  /** Commits files (path -> text) on branch `mr-IID` off main and opens the merge request. */
  openMergeRequestOf(iid: number, files: Record<string, string>): string;
  /** Commits budgets (by account, by campaign name) as merge request `iid`. */
  openMergeRequest(iid: number, budgets: Record<string, Record<string, number>>): string;
  configAtMain(account: string): string;
  writes(account: string): number;
  budgets(account: string): Record<string, number>;
  /** Merges `mr-IID` into main with a merge commit, as the merge button does. */
  merge(iid: number): string;
  main(): string;
  /** The merge request's pipeline: the accounts job, and the child pipeline it wrote. */
  pipeline(iid: number): Promise<MergeRequestPipeline>;
  /** A pipeline on main: a push (`before` is main's HEAD before it) or one run by hand (`web`). */
  mainPipeline(source: "push" | "web", sha: string, before?: string): Promise<MergeRequestPipeline>;
  close(): Promise<void>;
}

export async function gitlabAccountsProject(accounts: string[]): Promise<AccountsProject> {
  const emulators = await startAccountEmulators(accounts);
  const gitlab = await gitlabFake();
  const dir = mkdtempSync(join(tmpdir(), "doohctl-gitlab-accounts-"));
  const repo = join(dir, "repo");
  const git = (...args: string[]) => gitIn(repo, ...args);
  for (const account of accounts) {
    mkdirSync(join(repo, "accounts", account), { recursive: true });
    writeFileSync(
      join(repo, "accounts", account, "doohctl.yaml"),
      accountFile(account, emulators[account]!.origin, {}),
    );
  }
  git("init", "-q", "-b", "main");
  git("add", ".");
  git("commit", "-q", "-m", "accounts as code");

  const bin = fakeInstallBin(dir);

  const variables: ProjectVariable[] = [{ key: "GITLAB_API_TOKEN", value: "glpat-test" }];
  for (const account of accounts) {
    const prefix = prefixOf(account);
    const reader = userOf(account, READER);
    const writer = userOf(account, USER);
    const scope = `doohctl-${account}`;
    variables.push(
      { key: `${prefix}_API_ORIGIN`, value: emulators[account]!.origin },
      { key: `${prefix}_EMAIL_PLAN`, value: reader.email },
      { key: `${prefix}_PASSWORD_PLAN`, value: reader.password },
      { key: `${prefix}_EMAIL`, value: writer.email, protected: true, environment_scope: scope },
      { key: `${prefix}_PASSWORD`, value: writer.password, protected: true, environment_scope: scope },
    );
  }
  const diffBase = new Map<number, string>();
  let jobs = 0;
  let pipelines = 700;
  const configAtMain = (account: string) => git("show", `main:accounts/${account}/doohctl.yaml`);

  const openMergeRequestOf = (iid: number, files: Record<string, string>) => {
    git("checkout", "-q", "-B", `mr-${iid}`, "main");
    diffBase.set(iid, git("rev-parse", "HEAD"));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(repo, path)), { recursive: true });
      writeFileSync(join(repo, path), text);
    }
    git("add", ".");
    git("commit", "-q", "-m", `merge request !${iid}`);
    gitlab.mergeRequests.push({ iid, state: "opened", pipelines: [] });
    git("checkout", "-q", "main");
    return git("rev-parse", `mr-${iid}`);
  };

  /** One job of a pipeline on a fresh checkout of `sha`, with `files` (earlier stages' artifacts) in it. */
  const runJob = async (
    ci: GitLabCiYaml,
    name: string,
    at: { sha: string; ref: string; pipelineId: number; source: string; predefined: Record<string, string> },
    files: Record<string, Buffer> = {},
  ) => {
    const id = ++jobs;
    const home = join(dir, "jobs", String(id));
    const checkout = join(home, "build");
    mkdirSync(home, { recursive: true });
    execFileSync("git", ["clone", "-q", "--no-checkout", repo, checkout]);
    execFileSync("git", ["checkout", "-q", "--detach", at.sha], { cwd: checkout });
    for (const [path, data] of Object.entries(files)) writeFileSync(join(checkout, path), data);
    return runGitLabJob({
      ci,
      name,
      gitlab,
      dir: checkout,
      predefined: {
        CI_PIPELINE_SOURCE: at.source,
        CI_COMMIT_SHA: at.sha,
        CI_COMMIT_REF_NAME: at.ref,
        CI_DEFAULT_BRANCH: "main",
        ...at.predefined,
      },
      project: variables,
      protectedRef: at.ref === "main",
      machineEnv: { PATH: `${bin}:${process.env.PATH ?? ""}`, HOME: home, NO_COLOR: "1" },
      pipelineId: at.pipelineId,
    });
  };

  /** The accounts job, then the child pipeline it wrote, stage by stage, as the trigger job `trigger` runs it. */
  const runPipeline = async (
    trigger: string,
    at: { sha: string; ref: string; source: string; predefined: Record<string, string> },
    parentId: number,
  ): Promise<MergeRequestPipeline> => {
    const accountsJob = await runJob(PARENT, "accounts", { ...at, pipelineId: parentId });
    const childText = accountsJob.job.artifacts["child.yml"]?.toString() ?? "";
    const ran: ChildPipelineJob[] = [];
    if (accountsJob.status === "success") {
      const { ci, jobs: planned } = childJobs(childText);
      const childId = ++pipelines;
      gitlab.bridges.push({ pipeline: parentId, name: trigger, downstream: childId });
      const child = {
        ...at,
        source: "parent_pipeline",
        pipelineId: childId,
        predefined: { ...at.predefined },
      };
      delete child.predefined.CI_MERGE_REQUEST_IID;
      for (const stage of [...new Set(planned.map((j) => j.stage))]) {
        // Earlier stages' artifacts are downloaded into every later job (GitLab's default).
        const artifacts = Object.assign({}, ...ran.map((j) => j.run.job.artifacts)) as Record<string, Buffer>;
        const inStage = planned.filter((j) => j.stage === stage);
        const results = await Promise.all(inStage.map((j) => runJob(ci, j.name, child, artifacts)));
        for (const [i, j] of inStage.entries()) ran.push({ ...j, run: results[i]! });
      }
    }
    const job = (name: string, account?: string) => {
      const found = ran.find(
        (j) => j.name.split(":")[0] === name && (account === undefined || j.account === account),
      );
      if (!found) throw new Error(`no job ${name}${account ? ` for ${account}` : ""}`);
      return found;
    };
    return { accounts: accountsJob, child: childText, jobs: ran, job };
  };

  return {
    accounts,
    emulators,
    gitlab,
    variables,
    openMergeRequestOf,
    configAtMain,
    openMergeRequest(iid, budgets) {
      return openMergeRequestOf(iid, budgetChanges(budgets, configAtMain, emulators));
    },
    writes: (account) =>
      emulators[account]!.requestLog().filter((e) => e.method !== "GET" && !e.path.endsWith("/session"))
        .length,
    budgets: (account) =>
      Object.fromEntries(
        emulators[account]!.state().campaigns.map((c) => [c.name, c.budget_impressions as number]),
      ),
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
    pipeline(iid) {
      const parentId = ++pipelines;
      gitlab.mergeRequests.find((m) => m.iid === iid)?.pipelines.unshift(parentId);
      const predefined = {
        CI_MERGE_REQUEST_IID: String(iid),
        CI_MERGE_REQUEST_DIFF_BASE_SHA: diffBase.get(iid) ?? "",
      };
      const sha = git("rev-parse", `mr-${iid}`);
      return runPipeline(
        "plan",
        { sha, ref: `mr-${iid}`, source: "merge_request_event", predefined },
        parentId,
      );
    },
    mainPipeline(source, sha, before) {
      const predefined: Record<string, string> = {
        CI_COMMIT_BRANCH: "main",
        ...(before ? { CI_COMMIT_BEFORE_SHA: before } : {}),
      };
      return runPipeline("apply", { sha, ref: "main", source, predefined }, ++pipelines);
    },
    async close() {
      await gitlab.close();
      for (const emulator of Object.values(emulators)) await emulator.close();
    },
  };
}
