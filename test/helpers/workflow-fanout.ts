/**
 * Runs a whole GitHub workflow of several jobs the way GitHub schedules it, for the fan-out
 * workflows' tests (examples/github/doohctl-accounts-*.yml): jobs in `needs:` order, each
 * job's `if:` against `needs` (an implied `success()` is false when a needed job failed or was
 * skipped), `strategy.matrix: ${{ fromJSON(...) }}` expanded into one job per `include` entry
 * (an empty matrix fails the job, as GitHub refuses it), `max-parallel` of them at once and,
 * unless `fail-fast: false`, the others cancelled at the first failure (a job still running
 * then ends `cancelled`, one not started never starts). A job in
 * `environment: X` sees X's secrets over the repository's. Every job is a fresh runner: its
 * own workspace, temp directory and `uses:` fakes, from `runner`. The steps themselves run
 * through workflow-job.ts.
 */
import type { UsesFake } from "./composite-action.js";
import { evaluate, interpolate, stepCondition } from "./github-expressions.js";
import { type JobRun, runWorkflowJob, type WorkflowYaml } from "./workflow-job.js";

export type JobResult = "success" | "failure" | "cancelled" | "skipped";

export interface FanoutJob {
  job: string;
  /** The matrix entry of a matrix job. */
  matrix?: Record<string, string>;
  result: JobResult;
  /** The job's run; absent when it was skipped, cancelled before it started or refused. */
  run?: JobRun;
  /** Why GitHub refused the job (an empty matrix). */
  refused?: string;
  /** The evaluated `environment:` and `concurrency.group`. */
  environment?: string;
  concurrency?: string;
}

export interface FanoutRun {
  /** Failure when any job failed, as the run's badge shows. */
  status: "success" | "failure";
  jobs: FanoutJob[];
  /** One job (of a matrix job: the entry whose `account` is given); throws when absent. */
  job(name: string, account?: string): FanoutJob;
  /** Every job's log, for assertion messages. */
  log: string;
}

export interface RunnerMachine {
  workspace: string;
  temp: string;
  machineEnv: Record<string, string>;
  fakes: Record<string, UsesFake>;
}

const needsOf = (needs: string | string[] | undefined) =>
  needs === undefined ? [] : Array.isArray(needs) ? needs : [needs];

/** A `strategy.matrix` of the form `${{ fromJSON(X) }}`: X evaluated, its `include` entries. */
function expandMatrix(text: string, contexts: Record<string, unknown>): Record<string, string>[] {
  const m = /^\$\{\{\s*fromJSON\((.+)\)\s*\}\}$/s.exec(text.trim());
  if (!m) throw new Error(`only a matrix of \${{ fromJSON(...) }} is emulated, not ${text}`);
  const value = evaluate(m[1]!, { contexts, status: "success" });
  const parsed = JSON.parse(String(value ?? "")) as { include?: Record<string, string>[] };
  if (!Array.isArray(parsed.include)) throw new Error(`the matrix is not {"include": [...]}: ${value}`);
  return parsed.include;
}

/** At most `limit` of `tasks` at once, in order; `stop()` true skips the ones not started. */
async function pool<T>(
  tasks: (() => Promise<T>)[],
  limit: number,
  stop: () => boolean,
): Promise<(T | undefined)[]> {
  const results: (T | undefined)[] = new Array(tasks.length).fill(undefined);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const at = next++;
      if (stop()) continue;
      results[at] = await tasks[at]!();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, tasks.length)) }, worker));
  return results;
}

export async function runFanoutWorkflow(input: {
  workflow: WorkflowYaml;
  github: Record<string, unknown>;
  secrets: Record<string, string>;
  vars: Record<string, string>;
  /** Environment secrets by environment name. */
  environments?: Record<string, Record<string, string>>;
  /** A fresh runner for one job (`index` counts the run's jobs). */
  runner: (job: string, index: number) => RunnerMachine;
}): Promise<FanoutRun> {
  const jobs: FanoutJob[] = [];
  const needs: Record<string, { result: JobResult; outputs: Record<string, string> }> = {};
  const pending = Object.keys(input.workflow.jobs);
  let started = 0;
  while (pending.length > 0) {
    const name = pending.find((j) => needsOf(input.workflow.jobs[j]!.needs).every((n) => n in needs));
    if (!name) throw new Error(`jobs ${pending.join(", ")} need jobs that never run`);
    pending.splice(pending.indexOf(name), 1);
    const spec = input.workflow.jobs[name]!;
    const needed = Object.fromEntries(needsOf(spec.needs).map((n) => [n, needs[n]!]));
    const contexts = { github: input.github, vars: input.vars, needs: needed };
    const allGood = Object.values(needed).every((n) => n.result === "success");
    if (!stepCondition(spec.if, { contexts, status: allGood ? "success" : "failure" })) {
      jobs.push({ job: name, result: "skipped" });
      needs[name] = { result: "skipped", outputs: {} };
      continue;
    }
    const runOne = async (matrix: Record<string, string> | undefined): Promise<FanoutJob> => {
      const machine = input.runner(name, started++);
      const with_ = { ...contexts, ...(matrix ? { matrix } : {}) };
      const at = (text: string) => interpolate(text, { contexts: with_, status: "success" });
      const environment = spec.environment === undefined ? undefined : at(spec.environment);
      const concurrency = spec.concurrency === undefined ? undefined : at(spec.concurrency.group);
      const run = await runWorkflowJob({
        workflow: input.workflow,
        job: name,
        github: input.github,
        secrets: { ...input.secrets, ...(environment ? input.environments?.[environment] : {}) },
        vars: input.vars,
        contexts: { needs: needed, ...(matrix ? { matrix } : {}) },
        ...machine,
      });
      return {
        job: name,
        ...(matrix ? { matrix } : {}),
        result: run.status,
        run,
        ...(environment === undefined ? {} : { environment }),
        ...(concurrency === undefined ? {} : { concurrency }),
      };
    };
    if (spec.strategy?.matrix === undefined) {
      const ran = await runOne(undefined);
      jobs.push(ran);
      needs[name] = { result: ran.result, outputs: ran.run?.outputs ?? {} };
      continue;
    }
    const entries = expandMatrix(spec.strategy.matrix, contexts);
    if (entries.length === 0) {
      const refused =
        "Error when evaluating 'strategy' for job: Matrix vector 'include' does not contain any values";
      jobs.push({ job: name, result: "failure", refused });
      needs[name] = { result: "failure", outputs: {} };
      continue;
    }
    let failed = false;
    const failFast = spec.strategy["fail-fast"] !== false;
    const ran = await pool(
      entries.map((entry) => async () => {
        const one = await runOne(entry);
        // fail-fast: GitHub cancels the matrix's other jobs, running or not, at the first failure.
        if (failFast && failed && one.result === "success") return { ...one, result: "cancelled" as const };
        if (one.result !== "success") failed = true;
        return one;
      }),
      spec.strategy["max-parallel"] ?? entries.length,
      () => failFast && failed,
    );
    const results = ran.map(
      (one, i) => one ?? { job: name, matrix: entries[i]!, result: "cancelled" as const },
    );
    jobs.push(...results);
    const result: JobResult = results.some((r) => r.result === "failure")
      ? "failure"
      : results.some((r) => r.result === "cancelled")
        ? "cancelled"
        : "success";
    needs[name] = { result, outputs: results.findLast((r) => r.run)?.run?.outputs ?? {} };
  }
  const job = (name: string, account?: string) => {
    const found = jobs.find(
      (j) => j.job === name && (account === undefined || j.matrix?.account === account),
    );
    if (!found) throw new Error(`no job ${name}${account ? ` for ${account}` : ""}`);
    return found;
  };
  const log = jobs
    .map(
      (j) =>
        `=== ${j.job}${j.matrix ? ` (${j.matrix.account})` : ""}: ${j.result}\n${j.refused ?? j.run?.log ?? ""}`,
    )
    .join("\n");
  const status = jobs.some((j) => j.result === "failure" || j.result === "cancelled") ? "failure" : "success";
  return { status, jobs, job, log };
}
