/**
 * A GitHub repository of several DSP accounts for the fan-out workflows' tests
 * (examples/github/doohctl-accounts-plan.yml and -apply.yml): one directory per account under
 * accounts/, one emulator per account seeded with that account's own write and plan users
 * (USER and READER, each made the account's own by its name: credentials that reached another
 * account's emulator would be refused there), the secrets and variables the workflows' Setup
 * names (plan users as repository secrets, write users only in the environment
 * doohctl-<account>), and one call per workflow run, every job on a fresh runner.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { doohctlBuiltByAction } from "../helpers/action-build.js";
import { StepFailed, type UsesFake } from "../helpers/composite-action.js";
import { type GitHubFake, githubFake, workflowFakes } from "../helpers/github-fakes.js";
import { READER, USER } from "../helpers/users.js";
import { type FanoutRun, runFanoutWorkflow } from "../helpers/workflow-fanout.js";
import type { WorkflowYaml } from "../helpers/workflow-job.js";
import { ROOT } from "../proof/binary.js";
import { gitIn, originAndDev } from "./ci-account.js";
import { accountFile, budgetChanges, prefixOf, startAccountEmulators, userOf } from "./ci-accounts.js";

const workflow = (name: string) =>
  parse(
    readFileSync(join(ROOT, "examples", "github", `doohctl-accounts-${name}.yml`), "utf8"),
  ) as WorkflowYaml;

export interface AccountsRepo {
  accounts: string[];
  emulators: Record<string, RunningEmulator>;
  github: GitHubFake;
  /** Commits budgets (by account, by campaign name) on a new branch off main for pull request `pr`. */
  openPullRequest(pr: number, budgets: Record<string, Record<string, number>>): string;
  /** Commits any files (path -> text) on a new branch off main for pull request `pr`. */
  openPullRequestOf(pr: number, files: Record<string, string>): string;
  /** The text of accounts/<account>/doohctl.yaml at main (to edit in a pull request). */
  configAtMain(account: string): string;
  mergeRef(pr: number): string;
  /** A merge commit on main; its run's `before` is main's previous HEAD (`main()` before). */
  merge(pr: number): string;
  main(): string;
  applied(account: string): string | undefined;
  /**
   * Records `sha` as applied to every account, the refs a successful apply run pushes: for a
   * test that starts where main is applied without running that first manual run
   * (accounts-workflow.test.ts runs it).
   */
  appliedAt(sha: string): void;
  budgets(account: string): Record<string, number>;
  writes(account: string): number;
  cacheKeys(): string[];
  run(
    name: "plan" | "apply",
    event: { name: "push" | "pull_request" | "workflow_dispatch"; sha: string; pr?: number; before?: string },
    options?: {
      /** Environment secrets replacing an account's (its write user). */
      environments?: Record<string, Record<string, string>>;
      /** Given the `uses:` fakes of a job, the ones it uses. */
      fakes?: (job: string, given: Record<string, UsesFake>) => Record<string, UsesFake>;
      inputs?: Record<string, string>;
    },
  ): Promise<FanoutRun>;
  close(): Promise<void>;
}

export async function githubAccountsRepo(accounts: string[]): Promise<AccountsRepo> {
  const emulators = await startAccountEmulators(accounts);
  const dir = mkdtempSync(join(tmpdir(), "doohctl-accounts-workflow-"));
  const github = await githubFake(dir);
  const { origin, dev } = originAndDev(dir);
  const git = gitIn;
  const fileOf = (account: string) => join(dev, "accounts", account, "doohctl.yaml");
  for (const account of accounts) {
    mkdirSync(join(dev, "accounts", account), { recursive: true });
    writeFileSync(fileOf(account), accountFile(account, emulators[account]!.origin, {}));
  }
  git(dev, "add", ".");
  git(dev, "commit", "-q", "-m", "accounts as code");
  git(dev, "push", "-q", "origin", "main");

  const bin = join(dir, "bin");
  mkdirSync(bin);
  doohctlBuiltByAction(bin);
  const cache = new Map<string, string>();
  let runs = 0;

  const secrets: Record<string, string> = {};
  const vars: Record<string, string> = {};
  const environments: Record<string, Record<string, string>> = {};
  for (const account of accounts) {
    const prefix = prefixOf(account);
    const reader = userOf(account, READER);
    const writer = userOf(account, USER);
    secrets[`${prefix}_EMAIL_PLAN`] = reader.email;
    secrets[`${prefix}_PASSWORD_PLAN`] = reader.password;
    vars[`${prefix}_EMAIL_PLAN`] = reader.email;
    vars[`${prefix}_API_ORIGIN`] = emulators[account]!.origin;
    environments[`doohctl-${account}`] = {
      [`${prefix}_EMAIL`]: writer.email,
      [`${prefix}_PASSWORD`]: writer.password,
    };
  }

  const openPullRequestOf = (pr: number, files: Record<string, string>) => {
    git(dev, "fetch", "-q", "origin", "main");
    git(dev, "checkout", "-q", "-B", `pr-${pr}`, "origin/main");
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dev, path, ".."), { recursive: true });
      writeFileSync(join(dev, path), text);
    }
    git(dev, "add", ".");
    git(dev, "commit", "-q", "-m", `pull request #${pr}`);
    return git(dev, "rev-parse", "HEAD");
  };
  const configAtMain = (account: string) => git(origin, "show", `main:accounts/${account}/doohctl.yaml`);
  const mergeInto = (pr: number, message: string) => {
    git(dev, "fetch", "-q", "origin", "main");
    git(dev, "checkout", "-q", "--detach", "origin/main");
    git(dev, "merge", "-q", "--no-ff", "-m", message, `pr-${pr}`);
    return git(dev, "rev-parse", "HEAD");
  };

  return {
    accounts,
    emulators,
    github,
    openPullRequestOf,
    configAtMain,
    openPullRequest(pr, budgets) {
      return openPullRequestOf(pr, budgetChanges(budgets, configAtMain, emulators));
    },
    mergeRef(pr) {
      const sha = mergeInto(pr, `Merge ${pr} into main (GitHub's merge ref)`);
      git(dev, "push", "-q", "-f", "origin", `${sha}:refs/pull/${pr}/merge`);
      return sha;
    },
    merge(pr) {
      const sha = mergeInto(pr, `Merge pull request #${pr}`);
      git(dev, "push", "-q", "origin", `${sha}:refs/heads/main`);
      github.pulls.set(sha, pr);
      return sha;
    },
    main: () => git(origin, "rev-parse", "main"),
    appliedAt(sha) {
      for (const account of accounts) git(origin, "update-ref", `refs/doohctl/applied/${account}`, sha);
    },
    applied(account) {
      try {
        return git(origin, "rev-parse", "--verify", "-q", `refs/doohctl/applied/${account}`);
      } catch {
        return undefined;
      }
    },
    budgets: (account) =>
      Object.fromEntries(
        emulators[account]!.state().campaigns.map((c) => [c.name, c.budget_impressions as number]),
      ),
    writes: (account) =>
      emulators[account]!.requestLog().filter((e) => e.method !== "GET" && !e.path.endsWith("/session"))
        .length,
    cacheKeys: () => [...cache.keys()],
    async run(name, event, options = {}) {
      const id = ++runs;
      const runId = 2000 + id;
      const pullRequest = event.pr === undefined ? {} : { pull_request: { number: event.pr } };
      return runFanoutWorkflow({
        workflow: workflow(name),
        github: {
          event_name: event.name,
          sha: event.sha,
          ref: event.name === "pull_request" ? `refs/pull/${event.pr}/merge` : "refs/heads/main",
          base_ref: event.name === "pull_request" ? "main" : "",
          repository: "o/r",
          run_id: String(runId),
          token: "t",
          event: {
            repository: { default_branch: "main" },
            ...(event.before ? { before: event.before } : {}),
            ...(options.inputs ? { inputs: options.inputs } : {}),
            ...pullRequest,
          },
        },
        secrets,
        vars,
        environments: { ...environments, ...options.environments },
        runner: (job, index) => {
          const home = join(dir, "runs", String(id), `${job}-${index}`);
          const workspace = join(home, "ws");
          const temp = join(home, "temp");
          mkdirSync(workspace, { recursive: true });
          mkdirSync(temp, { recursive: true });
          const given = workflowFakes({ github, origin, sha: event.sha, runId, workspace, temp, cache });
          given["actions/download-artifact@v4"] = downloadArtifacts(github, runId, workspace);
          return {
            workspace,
            temp,
            machineEnv: {
              PATH: `${github.bin}:${bin}:${process.env.PATH ?? ""}`,
              HOME: home,
              NO_COLOR: "1",
              GH_FAKE_URL: github.origin,
            },
            fakes: options.fakes ? options.fakes(job, given) : given,
          };
        },
      });
    },
    async close() {
      await github.close();
      for (const emulator of Object.values(emulators)) await emulator.close();
    },
  };
}

/**
 * actions/download-artifact@v4 with `pattern:` and no `merge-multiple`: this run's artifacts
 * whose names match, each into `path/<name>/`.
 */
function downloadArtifacts(github: GitHubFake, runId: number, workspace: string): UsesFake {
  return async (step) => {
    const pattern = step.with.pattern;
    if (!pattern || step.with["merge-multiple"] === "true")
      throw new StepFailed("the fake download-artifact knows `pattern:` without merge-multiple only");
    const glob = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*")}$`);
    for (const artifact of github.artifacts.filter((a) => a.runId === runId && glob.test(a.name))) {
      const to = join(workspace, step.with.path ?? ".", artifact.name);
      mkdirSync(to, { recursive: true });
      for (const [file, text] of Object.entries(artifact.files)) writeFileSync(join(to, file), text);
    }
    return {};
  };
}
