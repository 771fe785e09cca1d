/**
 * Runs one job of a .gitlab-ci.yml the way a GitLab runner's bash does, for tests: the job's
 * `before_script` (or `default:`'s) and `script` lines joined into one script after
 * `set -eo pipefail`, `after_script` in a shell of its own with CI_JOB_STATUS; the job's
 * variables as GitLab resolves them (predefined, then project CI/CD variables, which override
 * the job's `variables:`; a protected variable only on a protected ref, an environment-scoped
 * one only in a job of that environment; `$VAR` in a job variable expanded); the job
 * registered in the fake GitLab API (gitlab-api-fake.ts) while it runs, and its artifacts
 * uploaded there (`when: always` ones also for a failed or cancelled job; a `*` in a path's
 * last part matches as GitLab's glob does); at the job's end, whatever its script left running
 * is killed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeJob, GitLabFake } from "./gitlab-api-fake.js";

export interface GitLabCiYaml {
  default?: { before_script?: string[]; after_script?: string[] };
  [job: string]: unknown;
}

interface JobYaml {
  before_script?: string[];
  script: string[];
  after_script?: string[];
  variables?: Record<string, string>;
  environment?: string;
  artifacts?: { when?: "always" | "on_success" | "on_failure"; paths?: string[] };
}

export interface ProjectVariable {
  key: string;
  value: string;
  protected?: boolean;
  /** `*` (the default) or an environment name. */
  environment_scope?: string;
}

export interface GitLabJobRun {
  job: FakeJob;
  /** CI_PROJECT_DIR, as the job left it. */
  dir: string;
  status: FakeJob["status"];
  code: number | string;
  log: string;
  afterLog: string;
}

/** The files an `artifacts:paths` entry names: a path, or a `*` pattern in its last part (`plan-*.json`). */
function artifactFiles(dir: string, path: string): string[] {
  if (!path.includes("*")) return existsSync(join(dir, path)) ? [path] : [];
  const at = path.lastIndexOf("/");
  const folder = at < 0 ? "" : path.slice(0, at);
  if (folder.includes("*")) throw new Error(`artifacts: only the last part of ${path} may hold a *`);
  const pattern = new RegExp(
    `^${path
      .slice(at + 1)
      .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
      .replaceAll("*", "[^/]*")}$`,
  );
  if (!existsSync(join(dir, folder))) return [];
  return readdirSync(join(dir, folder))
    .filter((name) => pattern.test(name))
    .sort()
    .map((name) => (folder ? `${folder}/${name}` : name));
}

/** One script's text as the runner gives it to bash. */
export function joinScript(lines: string[]): string {
  return ["set -eo pipefail", ...lines].join("\n");
}

function bash(
  file: string,
  cwd: string,
  env: Record<string, string>,
  onSpawn?: (child: ChildProcess) => void,
) {
  // Its own process group, so that a cancel reaches the script's commands too.
  const child = spawn("bash", ["--noprofile", "--norc", file], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let log = "";
  child.stdout.on("data", (chunk: Buffer) => {
    log += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    log += chunk.toString();
  });
  onSpawn?.(child);
  return new Promise<{ code: number | string; log: string }>((done) => {
    child.on("close", (code, signal) => done({ code: signal ?? code ?? -1, log }));
  });
}

export async function runGitLabJob(input: {
  ci: GitLabCiYaml;
  name: string;
  gitlab: GitLabFake;
  /** CI_PROJECT_DIR: the checkout. */
  dir: string;
  /** Predefined variables of this pipeline (CI_COMMIT_SHA, CI_PIPELINE_SOURCE, CI_MERGE_REQUEST_IID...). */
  predefined: Record<string, string>;
  project: ProjectVariable[];
  protectedRef: boolean;
  /** What the runner's machine has (PATH, HOME). */
  machineEnv: Record<string, string>;
  pipelineId: number;
  /** Given the script's bash as it starts: a test cancels the job through it. */
  onSpawn?: (child: ChildProcess, cancel: () => void) => void;
}): Promise<GitLabJobRun> {
  const spec = input.ci[input.name] as JobYaml | undefined;
  if (!spec) throw new Error(`no job ${input.name}`);
  const job: FakeJob = {
    id: input.gitlab.nextJobId(),
    name: input.name,
    ref: input.predefined.CI_COMMIT_REF_NAME ?? input.predefined.CI_COMMIT_BRANCH ?? "",
    status: "running",
    commit: { id: input.predefined.CI_COMMIT_SHA ?? "" },
    pipeline: { id: input.pipelineId },
    artifacts: {},
  };
  input.gitlab.jobs.push(job);
  const visible = input.project.filter(
    (v) =>
      (!v.protected || input.protectedRef) &&
      [undefined, "*", spec.environment].includes(v.environment_scope ?? "*"),
  );
  const env: Record<string, string> = {
    ...input.machineEnv,
    CI: "true",
    GITLAB_CI: "true",
    CI_API_V4_URL: input.gitlab.api,
    CI_PROJECT_ID: input.gitlab.projectId,
    CI_PROJECT_DIR: input.dir,
    CI_JOB_ID: String(job.id),
    CI_JOB_NAME: input.name,
    CI_JOB_URL: `https://gitlab.example/jobs/${job.id}`,
    CI_PIPELINE_ID: String(input.pipelineId),
    CI_PIPELINE_URL: `https://gitlab.example/pipelines/${input.pipelineId}`,
    ...(spec.environment ? { CI_ENVIRONMENT_NAME: spec.environment } : {}),
    ...input.predefined,
  };
  const projectValues = Object.fromEntries(visible.map((v) => [v.key, v.value]));
  const expand = (value: string) =>
    value.replace(/\$\{?(\w+)\}?/g, (_, name: string) => projectValues[name] ?? env[name] ?? "");
  const jobValues = Object.fromEntries(
    Object.entries(spec.variables ?? {}).map(([k, v]) => [k, expand(String(v))]),
  );
  // Project variables override the job's `variables:` (GitLab's precedence).
  Object.assign(env, jobValues, projectValues);
  const ci = input.ci.default ?? {};
  const script = join(input.dir, "..", `script-${job.id}.sh`);
  writeFileSync(script, joinScript([...(spec.before_script ?? ci.before_script ?? []), ...spec.script]));
  let cancelled = false;
  let pid: number | undefined;
  const ran = await bash(script, input.dir, env, (child) => {
    pid = child.pid;
    input.onSpawn?.(child, () => {
      cancelled = true;
      job.status = "canceling";
      // The runner ends the script: SIGTERM to its processes, then after_script and the
      // `when: always` artifacts (GitLab's `canceling` state).
      if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
    });
  });
  const status: FakeJob["status"] = cancelled ? "canceled" : ran.code === 0 ? "success" : "failed";
  const after = spec.after_script ?? ci.after_script;
  let afterLog = "";
  if (after) {
    const file = join(input.dir, "..", `after-${job.id}.sh`);
    writeFileSync(file, joinScript(after));
    afterLog = (await bash(file, input.dir, { ...env, CI_JOB_STATUS: status })).log;
  }
  const when = spec.artifacts?.when ?? "on_success";
  if (when === "always" || (when === "on_success") === (status === "success")) {
    for (const path of spec.artifacts?.paths ?? []) {
      for (const found of artifactFiles(input.dir, path))
        job.artifacts[found] = readFileSync(join(input.dir, found));
    }
  }
  job.status = status;
  // The job is over: what its script left running (a process it started, one a cancel's
  // SIGTERM had not ended yet) goes with it, as the runner removes the job's container.
  if (pid !== undefined)
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // nothing left in the group
    }
  return { job, dir: input.dir, status, code: ran.code, log: ran.log, afterLog };
}
