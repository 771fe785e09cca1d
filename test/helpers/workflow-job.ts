/**
 * Runs one job of a GitHub workflow the way a runner does, for tests: the job's `env:`
 * evaluated against `github`, `secrets` and `vars`; then its steps through the runner's step
 * loop (composite-action.ts `runSteps`): `if:`, `${{ }}` evaluated, every `run:` step as
 * `bash --noprofile --norc -eo pipefail FILE` (the workflows set `defaults.run.shell: bash`),
 * every `uses:` step by a named fake (github-fakes.ts). After the last step, the runner's
 * orphan cleanup: every process still running with the job's RUNNER_TRACKING_ID in its
 * environment (a process a step left in the background, one whose step was killed) is killed.
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { runSteps, type Step, type StepOutcome, type UsesFake } from "./composite-action.js";
import { type ExpressionContext, interpolate } from "./github-expressions.js";

export interface WorkflowYaml {
  env?: Record<string, string>;
  defaults?: { run?: { shell?: string } };
  jobs: Record<string, WorkflowJobYaml>;
}

export interface WorkflowJobYaml {
  env?: Record<string, string>;
  steps: Step[];
  defaults?: { run?: { shell?: string } };
  /** The fan-out workflows' job keys (workflow-fanout.ts runs them). */
  needs?: string | string[];
  if?: string;
  outputs?: Record<string, string>;
  strategy?: { "fail-fast"?: boolean; "max-parallel"?: number; matrix?: string };
  environment?: string;
  concurrency?: { group: string; "cancel-in-progress"?: boolean };
}

export interface JobRun {
  status: "success" | "failure" | "cancelled";
  steps: StepOutcome[];
  summary: string;
  /** A step's outcome by id (or `step-N`), for assertions. */
  step(id: string): StepOutcome;
  /** Every step's log, in order: what the job's log page shows. */
  log: string;
  /** The job's `outputs:`, evaluated after its steps (what `needs.<job>.outputs` holds). */
  outputs: Record<string, string>;
}

export async function runWorkflowJob(input: {
  workflow: WorkflowYaml;
  job: string;
  /** The `github` context: event_name, sha, ref, repository, event, run_id... */
  github: Record<string, unknown>;
  secrets: Record<string, string>;
  vars: Record<string, string>;
  /** Further contexts of a fan-out job: `matrix` (its entry) and `needs`. */
  contexts?: Record<string, unknown>;
  /** What the runner's machine has in its environment (PATH, HOME...). */
  machineEnv: Record<string, string>;
  workspace: string;
  temp: string;
  fakes: Record<string, UsesFake>;
  onSpawn?: (stepId: string, child: ChildProcess, exited: Promise<unknown>) => void;
}): Promise<JobRun> {
  const job = input.workflow.jobs[input.job];
  if (!job) throw new Error(`no job ${input.job}`);
  const github = { workspace: input.workspace, run_attempt: "1", ...input.github };
  const context: ExpressionContext = {
    contexts: { ...input.contexts, github, secrets: input.secrets, vars: input.vars, env: {}, steps: {} },
    status: "success",
  };
  const tracking = `github_${randomUUID()}`;
  const env: Record<string, string> = {
    ...input.machineEnv,
    CI: "true",
    GITHUB_ACTIONS: "true",
    RUNNER_TRACKING_ID: tracking,
  };
  for (const [name, value] of Object.entries({ ...input.workflow.env, ...job.env }))
    env[name] = interpolate(String(value), context);
  context.contexts.env = env;
  const ran = await runSteps({
    steps: job.steps,
    context,
    env,
    defaultShell: job.defaults?.run?.shell ?? input.workflow.defaults?.run?.shell,
    github,
    workspace: input.workspace,
    temp: input.temp,
    fakes: input.fakes,
    ...(input.onSpawn ? { onSpawn: input.onSpawn } : {}),
  });
  killTracked(tracking);
  const step = (id: string) => {
    const found = ran.steps.find((s) => s.id === id);
    if (!found) throw new Error(`no step ${id}`);
    return found;
  };
  const log = ran.steps.map((s) => `--- ${s.id} (${s.outcome})\n${s.log ?? ""}`).join("\n");
  const outputs = Object.fromEntries(
    Object.entries(job.outputs ?? {}).map(([name, value]) => [name, interpolate(String(value), context)]),
  );
  return { status: context.status, steps: ran.steps, summary: ran.summary, step, log, outputs };
}

/** SIGKILL to every process whose environment holds RUNNER_TRACKING_ID=`tracking` (Linux /proc). */
function killTracked(tracking: string): void {
  const mark = `RUNNER_TRACKING_ID=${tracking}`;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, "latin1");
    } catch {
      continue; // gone, or another user's
    }
    if (!environ.split("\0").includes(mark)) continue;
    try {
      process.kill(Number(entry), "SIGKILL");
    } catch {
      // exited meanwhile
    }
  }
}
