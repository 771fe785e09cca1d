/**
 * Runs a composite action (action.yml) the way a GitHub runner does, for tests: each step's
 * `if:` evaluated; each `run:` step's `${{ }}` evaluated (github-expressions.ts), written to a
 * file and run as `bash --noprofile --norc -eo pipefail FILE` (the runner's command for an
 * explicit `shell: bash`) with its own GITHUB_OUTPUT and the job's GITHUB_ENV,
 * GITHUB_STEP_SUMMARY and RUNNER_TEMP files; each `uses:` step handed to a named fake. A test
 * may cancel a step as the runner does (runner-cancel.ts) through `onSpawn`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type ExpressionContext, interpolate, stepCondition } from "./github-expressions.js";

export interface Step {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
  "working-directory"?: string;
}

export interface ActionYaml {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

export interface StepOutcome {
  id: string;
  outcome: "success" | "failure" | "cancelled" | "skipped";
  outputs: Record<string, string>;
  exitCode?: number | string;
  log?: string;
}

/** A `uses:` step's stand-in: given its evaluated `with` and `env`, it reports its outputs. */
export type UsesFake = (input: {
  with: Record<string, string>;
  env: Record<string, string>;
}) => Promise<Record<string, string>>;

export interface CompositeRun {
  status: "success" | "failure" | "cancelled";
  steps: StepOutcome[];
  outputs: Record<string, string>;
  /** GITHUB_STEP_SUMMARY's content. */
  summary: string;
}

/** `name=value` lines and `name<<DELIM` blocks, as the runner reads GITHUB_OUTPUT and GITHUB_ENV. */
export function parseCommandFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line === "") continue;
    const heredoc = /^([^=]+?)<<(.+)$/.exec(line);
    if (heredoc) {
      const body: string[] = [];
      for (i++; i < lines.length && lines[i] !== heredoc[2]; i++) body.push(lines[i] ?? "");
      values[heredoc[1]!] = body.join("\n");
      continue;
    }
    const at = line.indexOf("=");
    if (at < 0) throw new Error(`not a name=value line: ${line}`);
    values[line.slice(0, at)] = line.slice(at + 1);
  }
  return values;
}

export function runBash(
  file: string,
  options: {
    /** bash's options before FILE; the runner's for `shell: bash` unless given. */
    args?: string[];
    cwd: string;
    env: Record<string, string>;
    onSpawn?: (child: ChildProcess, exited: Promise<unknown>) => void;
  },
): Promise<{ code: number | string; log: string }> {
  const child = spawn("bash", [...(options.args ?? ["--noprofile", "--norc", "-eo", "pipefail"]), file], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
    // A process group of its own, as a runner's step has: a test may signal all of it (-pid).
    detached: true,
  });
  let log = "";
  child.stdout.on("data", (chunk: Buffer) => {
    log += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    log += chunk.toString();
  });
  const exited = new Promise<{ code: number | string; log: string }>((done) => {
    child.on("close", (code, signal) => done({ code: signal ?? code ?? -1, log }));
    // A step the runner killed (its cancel's SIGKILL) ends then, even while a process it
    // started in the background still holds its output open: that one runs on until the job's
    // orphan cleanup (workflow-job.ts).
    child.on("exit", (_code, signal) => {
      if (signal === "SIGKILL") done({ code: signal, log });
    });
  });
  options.onSpawn?.(child, exited);
  return exited;
}

/** A `uses:` fake that fails its step (with outputs) throws this; `cancelled` when the runner cancelled it. */
export class StepFailed extends Error {
  constructor(
    message: string,
    readonly outputs: Record<string, string> = {},
    readonly outcome: "failure" | "cancelled" = "failure",
  ) {
    super(message);
  }
}

export interface StepsInput {
  steps: Step[];
  context: ExpressionContext;
  /** Every step's base environment (the job's `env:`, or the calling step's for an action). */
  env: Record<string, string>;
  /** The shell of a `run:` step that names none (a workflow's `defaults.run.shell`). */
  defaultShell?: string | undefined;
  github: Record<string, unknown>;
  workspace: string;
  temp: string;
  fakes: Record<string, UsesFake>;
  onSpawn?: (stepId: string, child: ChildProcess, exited: Promise<unknown>) => void;
  cancelled?: () => boolean;
}

/**
 * The runner's step loop, shared by composite actions and workflow jobs: `if:`, `env:`,
 * `uses:` fakes, `run:` scripts under `bash --noprofile --norc -eo pipefail`, GITHUB_ENV
 * carried from step to step; `context.status` and `context.contexts.steps` follow the steps.
 */
export async function runSteps(input: StepsInput): Promise<{ steps: StepOutcome[]; summary: string }> {
  const { context } = input;
  const steps = (context.contexts.steps ?? {}) as Record<
    string,
    { outputs: Record<string, string>; outcome: string }
  >;
  context.contexts.steps = steps;
  mkdirSync(input.temp, { recursive: true });
  const githubEnv = join(input.temp, "github-env");
  const summary = join(input.temp, "step-summary");
  writeFileSync(githubEnv, "");
  writeFileSync(summary, "");
  const outcomes: StepOutcome[] = [];
  for (const [index, step] of input.steps.entries()) {
    const id = step.id ?? `step-${index}`;
    if (!stepCondition(step.if, context)) {
      outcomes.push({ id, outcome: "skipped", outputs: {} });
      continue;
    }
    const env: Record<string, string> = {
      ...input.env,
      ...parseCommandFile(readFileSync(githubEnv, "utf8")),
    };
    for (const [name, value] of Object.entries(step.env ?? {}))
      env[name] = interpolate(String(value), context);
    let outcome: StepOutcome;
    if (step.uses !== undefined) {
      const fake = input.fakes[step.uses];
      if (!fake) throw new Error(`no fake for uses: ${step.uses}`);
      const given = Object.fromEntries(
        Object.entries(step.with ?? {}).map(([k, v]) => [k, interpolate(String(v), context)]),
      );
      try {
        outcome = { id, outcome: "success", outputs: await fake({ with: given, env }) };
      } catch (error) {
        if (!(error instanceof StepFailed)) throw error;
        outcome = { id, outcome: error.outcome, outputs: error.outputs, log: error.message };
      }
    } else {
      // An explicit `shell: bash` runs as `bash --noprofile --norc -eo pipefail {0}`; a workflow
      // step naming no shell as `bash -e {0}` (GitHub's documented defaults).
      const shell = step.shell ?? input.defaultShell;
      if (shell !== undefined && shell !== "bash") throw new Error(`step ${id}: a run step needs bash`);
      const args = shell === "bash" ? ["--noprofile", "--norc", "-eo", "pipefail"] : ["-e"];
      const file = join(input.temp, `step-${index}.sh`);
      writeFileSync(file, interpolate(step.run ?? "", context));
      const output = join(input.temp, `output-${index}`);
      writeFileSync(output, "");
      const cwd = resolve(input.workspace, interpolate(step["working-directory"] ?? ".", context));
      const ran = await runBash(file, {
        args,
        cwd,
        env: {
          ...env,
          GITHUB_OUTPUT: output,
          GITHUB_ENV: githubEnv,
          GITHUB_STEP_SUMMARY: summary,
          RUNNER_TEMP: input.temp,
          GITHUB_WORKSPACE: input.workspace,
          GITHUB_RUN_ATTEMPT: String(input.github.run_attempt ?? "1"),
        },
        ...(input.onSpawn ? { onSpawn: (child, exited) => input.onSpawn?.(id, child, exited) } : {}),
      });
      const outputs = parseCommandFile(readFileSync(output, "utf8"));
      const cancelled = input.cancelled?.() === true;
      outcome = {
        id,
        outcome: cancelled ? "cancelled" : ran.code === 0 ? "success" : "failure",
        outputs,
        exitCode: ran.code,
        log: ran.log,
      };
    }
    outcomes.push(outcome);
    steps[id] = { outputs: outcome.outputs, outcome: outcome.outcome };
    if (outcome.outcome === "cancelled") context.status = "cancelled";
    else if (outcome.outcome === "failure" && context.status === "success") context.status = "failure";
  }
  return { steps: outcomes, summary: readFileSync(summary, "utf8") };
}

export async function runComposite(input: {
  action: ActionYaml;
  /** The `with:` of the calling workflow step; defaults come from action.yml. */
  with: Record<string, string>;
  /** The job's environment (secrets and `env:` of the calling job): every step sees it. */
  env: Record<string, string>;
  github: Record<string, string>;
  /** GITHUB_WORKSPACE: working directories are resolved against it. */
  workspace: string;
  /** RUNNER_TEMP: the runner's files and the step scripts go there. */
  temp: string;
  fakes: Record<string, UsesFake>;
  /** Called with a `run:` step's bash as it starts (to cancel it, as the runner would). */
  onSpawn?: (stepId: string, child: ChildProcess, exited: Promise<unknown>) => void;
  /** Whether the runner cancelled the run while a step ran (the caller sent the signals). */
  cancelled?: () => boolean;
}): Promise<CompositeRun> {
  const { action } = input;
  const inputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(action.inputs)) {
    const given = input.with[name];
    if (given === undefined && spec.required) throw new Error(`input ${name} is required`);
    inputs[name] = given ?? spec.default ?? "";
  }
  const context: ExpressionContext = {
    contexts: { inputs, github: input.github, env: input.env, steps: {} },
    status: "success",
  };
  for (const step of action.runs.steps)
    if (step.run !== undefined && step.shell !== "bash")
      throw new Error(`step ${step.id ?? step.name}: a composite run step needs shell: bash`);
  const ran = await runSteps({
    steps: action.runs.steps,
    context,
    env: input.env,
    github: input.github,
    workspace: input.workspace,
    temp: input.temp,
    fakes: input.fakes,
    ...(input.onSpawn ? { onSpawn: input.onSpawn } : {}),
    ...(input.cancelled ? { cancelled: input.cancelled } : {}),
  });
  const outputs = Object.fromEntries(
    Object.entries(action.outputs).map(([name, spec]) => [name, interpolate(spec.value, context)]),
  );
  return { status: context.status, steps: ran.steps, outputs, summary: ran.summary };
}
