/**
 * Options more than one command takes, each defined once: connection (`--ca`,
 * `--no-session-cache`), scope (`--target`, `--changed-since`), `--format`, and the tuning of
 * the commands that read live state (`--max-wait`, the DOOH401 thresholds, ...).
 */
import { type Command, InvalidArgumentError, Option } from "commander";
import { ALLOWED_CODES, isAllowableCode } from "../plan/finding-catalogue.js";
import type { PlanThresholds } from "../plan/types.js";
import { UsageError } from "./errors.js";
import type { PipelineOptions } from "./pipeline.js";

/** The repeatable-option accumulator: each `--flag VALUE` adds VALUE to the list. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** As `collect`, for values that may each hold several ids: `1001,1002` or `"1001 1002"`. */
export function collectIds(value: string, previous: string[]): string[] {
  return [...previous, ...value.split(/[\s,]+/).filter(Boolean)];
}

/** The flags of the commands that log in to the DSP. */
export interface ConnectionFlags {
  ca?: string;
  sessionCache: boolean;
}

function ca(): Option {
  return new Option(
    "--ca <file>",
    "trust this PEM CA certificate in addition to Node's bundled roots (a DSP behind a private CA)",
  );
}

function sessionCache(): Option {
  return new Option("--no-session-cache", "log in afresh and do not store the session");
}

/** `--target ID`, repeatable; `what` says which ids the command's plan can be narrowed to. */
function target(what: string): Option {
  return new Option("--target <id>", `narrow the plan to ${what} (repeatable)`)
    .argParser(collect)
    .default([]);
}

/** `--changed-since REF`; `example` shows a REF, if any. */
function changedSince(example = ""): Option {
  return new Option(
    "--changed-since <ref>",
    `plan only the objects whose config differs from the config at git revision REF${example}`,
  );
}

/**
 * `--format` of fixed values, the first the default, refused by commander; with `checkedBy:
 * "command"`, by the command (`formatOf`): a `USAGE` error in its own voice and shape.
 */
function format(
  description: string,
  formats: readonly [string, ...string[]],
  options: { checkedBy?: "commander" | "command" } = {},
): Option {
  if (options.checkedBy === "command") {
    return new Option("--format <format>", `${description}: ${valueList(formats)}`).default(formats[0]);
  }
  return new Option("--format <format>", description).choices(formats).default(formats[0]);
}

/** `text, json or markdown`. */
function valueList(values: readonly string[]): string {
  return values.length === 1 ? values[0]! : `${values.slice(0, -1).join(", ")} or ${values.at(-1)}`;
}

/** The `--format` value of a command that checks it: one of `formats`, or the `USAGE` error naming them. */
export function formatOf<F extends string>(value: string, formats: readonly [F, ...F[]]): F | UsageError {
  const known = formats.find((f) => f === value);
  return known ?? new UsageError(`--format ${value} is not known: use ${valueList(formats)}`);
}

/** The options several commands take, each written once: `.addOption(Flag.ca())`. */
export const Flag = { ca, sessionCache, target, changedSince, format };

export interface TuningFlags {
  maxWait?: number;
  maxPause?: number;
  budgetIncreaseThreshold?: number;
  cpmIncreaseThreshold?: number;
  minBudgetDays?: number;
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

/** One `--allow CODE`: a policy code (DOOH901..DOOH906) or DOOH804, collected into a list. */
function allowCode(value: string, previous: string[] | undefined): string[] {
  const code = value.trim().toUpperCase();
  if (!isAllowableCode(code)) {
    throw new InvalidArgumentError(
      `${value} is not a code --allow accepts: write one of ${ALLOWED_CODES.join(", ")} (see docs/plan.md)`,
    );
  }
  return collect(code, previous ?? []);
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
      "--min-budget-days <days>",
      "warn (DOOH304) when a budget cut leaves a campaign in flight fewer days than this of delivery at its current pace (default 2)",
      nonNegative,
    )
    .option(
      "--allow <code>",
      "apply although the config's policy denies it (DOOH901..DOOH906), or a currency change under money spent (DOOH804): the code becomes a warning; repeatable, recorded in the plan",
      allowCode,
    );
}

export function thresholdsOf(flags: TuningFlags): PlanThresholds | undefined {
  const thresholds: PlanThresholds = {
    ...(flags.budgetIncreaseThreshold !== undefined
      ? { budget_increase_percent: flags.budgetIncreaseThreshold }
      : {}),
    ...(flags.cpmIncreaseThreshold !== undefined ? { cpm_increase_percent: flags.cpmIncreaseThreshold } : {}),
    ...(flags.minBudgetDays !== undefined ? { min_budget_days: flags.minBudgetDays } : {}),
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
export interface ReadFlags extends TuningFlags, ConnectionFlags {
  target: string[];
  changedSince?: string;
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
