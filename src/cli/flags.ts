/**
 * Options shared by the commands that read live state (plan, apply): how long one rate-limit
 * or retry wait may last, and the thresholds of the large-increase analyzer (DOOH401).
 */
import { type Command, InvalidArgumentError } from "commander";
import { isPolicyCode, POLICY_CODES } from "../plan/policy.js";
import type { PlanThresholds } from "../plan/types.js";
import type { PipelineOptions } from "./pipeline.js";

export interface TuningFlags {
  maxWait?: number;
  maxPause?: number;
  budgetIncreaseThreshold?: number;
  cpmIncreaseThreshold?: number;
  /** `--allow CODE`, repeatable: policy denials to apply anyway. */
  allow?: string[];
}

function nonNegative(value: string): number {
  const number = Number(value);
  if (value.trim() === "" || !Number.isFinite(number) || number < 0) {
    throw new InvalidArgumentError("write a number of 0 or more");
  }
  return number;
}

/** One `--allow CODE`: a policy code (DOOH901..DOOH905), collected into a list. */
function allowCode(value: string, previous: string[] | undefined): string[] {
  const code = value.trim().toUpperCase();
  if (!isPolicyCode(code)) {
    throw new InvalidArgumentError(
      `${value} is not a policy code: write one of ${POLICY_CODES.join(", ")} (see docs/plan.md)`,
    );
  }
  return [...(previous ?? []), code];
}

/** Adds the shared tuning options to a command. */
export function addTuningOptions(command: Command): Command {
  return command
    .option(
      "--max-wait <seconds>",
      "fail instead of waiting longer than this for one Retry-After or backoff (default 120)",
      nonNegative,
    )
    .option(
      "--max-pause <seconds>",
      "pause no campaign longer than this (estimated) for a targeting change, at the price of extra writes",
      nonNegative,
    )
    .option(
      "--budget-increase-threshold <percent>",
      "warn (DOOH401) when a budget grows by more than this percentage (default 50); also the default limit of the policy rule budget_increase_percent",
      nonNegative,
    )
    .option(
      "--cpm-increase-threshold <percent>",
      "warn (DOOH401) when a cpm grows by more than this percentage (default 20); also the default limit of the policy rule cpm_increase_percent",
      nonNegative,
    )
    .option(
      "--allow <code>",
      "apply although the config's policy denies it: the policy code (DOOH901..DOOH905) becomes a warning; repeatable, recorded in the plan",
      allowCode,
    );
}

export function thresholdsOf(flags: TuningFlags): PlanThresholds | undefined {
  const thresholds: PlanThresholds = {
    ...(flags.budgetIncreaseThreshold !== undefined
      ? { budgetIncreasePercent: flags.budgetIncreaseThreshold }
      : {}),
    ...(flags.cpmIncreaseThreshold !== undefined ? { cpmIncreasePercent: flags.cpmIncreaseThreshold } : {}),
  };
  return Object.keys(thresholds).length > 0 ? thresholds : undefined;
}

export function maxWaitMsOf(flags: TuningFlags): number | undefined {
  return flags.maxWait === undefined ? undefined : Math.round(flags.maxWait * 1000);
}

export function maxPauseMsOf(flags: TuningFlags): number | undefined {
  return flags.maxPause === undefined ? undefined : Math.round(flags.maxPause * 1000);
}

/** The flags plan and apply share, as the pipeline takes them: written once for both. */
export interface ReadFlags extends TuningFlags {
  target: string[];
  changedSince?: string;
  sessionCache: boolean;
  ca?: string;
}

export function pipelineOptionsOf(flags: ReadFlags, paths: readonly string[]): PipelineOptions {
  return {
    paths,
    targets: flags.target,
    changedSince: flags.changedSince,
    sessionCache: flags.sessionCache,
    caFile: flags.ca,
    thresholds: thresholdsOf(flags),
    allowed: flags.allow,
    maxWaitMs: maxWaitMsOf(flags),
    maxPauseMs: maxPauseMsOf(flags),
  };
}
