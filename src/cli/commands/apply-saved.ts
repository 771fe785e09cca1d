/**
 * `apply --plan FILE`: the saved plan checked against the config, the connection and the
 * live state of now, and made again from them (ARCHITECTURE.md#plan).
 */
import { existsSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { findTree } from "../../config/file-guard.js";
import { loadConfig } from "../../config/load.js";
import type { ConfigFileDigest } from "../../model/desired.js";
import { checkProposal } from "../../plan/saved/proposal.js";
import type { Plan } from "../../plan/types.js";
import { connect, connectionOf } from "../connection.js";
import type { CliIO } from "../io.js";
import { type PipelineOptions, readAndPlan } from "../pipeline.js";
import { readPlanFile } from "../plan-file.js";
import { ApplyRefused, type PreparedApply, shortList } from "./apply-prepared.js";

/**
 * A saved plan names its config files relative to the tree (docs/plan.md): a path absolute or
 * climbing out (`..`) is refused before anything is read, whatever wrote it.
 */
function planPathsInTree(file: string, tree: string, saved: Plan): string[] {
  const outside = saved.config_files
    .map((f) => f.path)
    .filter(
      (path) =>
        path === "" || isAbsolute(path) || /^[A-Za-z]:/.test(path) || path.split(/[/\\]/).includes(".."),
    );
  if (outside.length > 0) {
    throw new ApplyRefused(
      `${file} names config files outside the tree ${tree} (${outside.join(", ")}): apply --plan reads config files only inside the tree, relative to it. Nothing was read or sent. Make a new plan from config files inside the repository (doohctl plan -o ${file})`,
      { beforeLogin: true },
    );
  }
  const paths = saved.config_files.map((f) => join(tree, f.path));
  const missing = saved.config_files.filter((_, i) => !existsSync(paths[i]!)).map((f) => f.path);
  if (missing.length > 0) {
    throw new ApplyRefused(
      `${file} was made from ${missing.join(", ")}, which ${missing.length === 1 ? "is" : "are"} not in ${tree}: ` +
        `run apply in the tree the plan was made in (its git work tree, or its directory outside git), or name the files: doohctl apply --plan ${file} PATHS. ` +
        "Nothing was sent",
      { beforeLogin: true },
    );
  }
  return paths;
}

/**
 * Every config file's digest against the plan's, before any byte is parsed (beforeParse): one
 * that differs is never read further, let alone quoted; one not read is known at `complete`.
 */
function sameDigests(
  file: string,
  saved: Plan,
  shown: string,
): (files: readonly ConfigFileDigest[], complete: boolean) => void {
  return (files, complete) => {
    const digests = new Map(saved.config_files.map((f) => [f.path, f.sha256]));
    const differing = files.filter((f) => digests.get(f.path) !== f.sha256).map((f) => f.path);
    const missing = complete ? saved.config_files.filter((f) => !files.some((d) => d.path === f.path)) : [];
    if (differing.length > 0 || missing.length > 0) {
      throw new ApplyRefused(
        `${file} was made from other config files than ${shown} are now (${[
          ...differing.map((p) => `${p} differs`),
          ...missing.map((f) => `${f.path} not read`),
        ].join(", ")}): nothing was sent. Apply from the commit the plan was made at, or make a new plan`,
      );
    }
  };
}

/** The config files a saved plan names, in the tree (for settling the record when it is refused). */
export async function savedPlanConfig(io: CliIO, file: string): Promise<{ paths: string[]; tree: string }> {
  const saved = readPlanFile(resolve(io.cwd, file));
  const tree = await findTree(io.cwd);
  return { paths: planPathsInTree(file, tree, saved), tree };
}

/**
 * A saved plan is a proposal (ARCHITECTURE.md#plan): the connection comes from the config and
 * environment now, the config must have the plan's digests, and the plan made again from it and
 * the live state is applied only when its requests are exactly the file's.
 */
export async function prepareSavedPlan(
  io: CliIO,
  file: string,
  paths: string[],
  options: PipelineOptions,
): Promise<PreparedApply> {
  // Relative to the command's working directory, like every other path argument.
  const saved = readPlanFile(resolve(io.cwd, file));
  if (paths.length === 0 && saved.config_files.length === 0) {
    throw new ApplyRefused(`${file} names no config file: make a new plan with doohctl plan -o ${file}`, {
      beforeLogin: true,
    });
  }
  const tree = await findTree(io.cwd);
  // Named on the command line, the files are the user's choice; named by the plan, they are
  // confined to the tree, links and all.
  const configPaths = paths.length > 0 ? paths : planPathsInTree(file, tree, saved);
  const shown = paths.length > 0 ? paths.join(", ") : saved.config_files.map((f) => f.path).join(", ");
  const desired = await loadConfig(configPaths, {
    cwd: io.cwd,
    tree,
    confine: paths.length === 0,
    beforeParse: sameDigests(file, saved, shown),
  });
  // Credentials go only where the config and the environment say now (ARCHITECTURE.md#plan).
  const connection = connectionOf(io, desired.connection, { ...options, state: true });
  // A plan of one account is never applied to another (docs/safety.md, Credentials), even
  // on the same origin, environment and user.
  if ((saved.account ?? undefined) !== connection.account?.name) {
    throw new ApplyRefused(
      `${file} is a plan of ${accountText(saved.account)}, and this config is ${accountText(connection.account?.name)}: nothing was sent and no login was made. Apply it with its own account's directory, or make a new plan for this one`,
      { beforeLogin: true },
    );
  }
  const { user, apiOrigin, environment } = connection;
  const made = saved.connection;
  // A read-only user may plan what a write user of the account applies (spec, Authentication 1):
  // DOOHCTL_PLAN_USER names it; the plan is made again as this user anyway.
  const planUser = io.env.DOOHCTL_PLAN_USER;
  const userOk = made.user === user || (planUser !== undefined && planUser !== "" && made.user === planUser);
  if (made.api_origin !== apiOrigin || made.environment !== environment || !userOk) {
    const was = `${made.api_origin} (${made.environment}) as ${made.user ?? "an unrecorded user"}`;
    throw new ApplyRefused(
      `${file} was made for ${was}, not for ${apiOrigin} (${environment}) as ${user}: nothing was sent and no login was made. Make a new plan for this DSP and user (or, for a plan made by a read-only user of the same account, set DOOHCTL_PLAN_USER to that user)`,
      { beforeLogin: true },
    );
  }
  const { client, pacing } = connect(io, connection);
  try {
    const run = await readAndPlan(io, {
      desired,
      client,
      connection,
      pacing,
      targets: saved.targets,
      ...(saved.scope ? { changed: saved.scope } : {}),
      ...(saved.max_pause_ms !== undefined ? { maxPauseMs: saved.max_pause_ms } : {}),
      // The saved plan's --allow codes: an allowed policy denial still applies as planned.
      ...(saved.allowed ? { allowed: saved.allowed } : {}),
      // The saved plan's threshold flags: the limits it was reviewed with.
      ...(saved.thresholds ? { thresholds: saved.thresholds } : {}),
    });
    // An apply stopped since left campaigns paused, which the plan of now reactivates (DOOH202)
    // and the file cannot: say so, not "altered"; the record's lines say if they are active again.
    const reactivating = reactivatedCampaigns(saved);
    const since = run.recorded.filter(
      (e) => reactivatedCampaigns(run.plan).has(e.campaign_id) && !reactivating.has(e.campaign_id),
    );
    if (since.length > 0) {
      throw new ApplyRefused(
        `since ${file} was made, an apply that stopped left ${since
          .map((e) => `campaign ${e.campaign_id} "${e.name}"`)
          .join(
            ", ",
          )} paused (the recovery record), which ${file} does not reactivate, so nothing of it was applied. The Recovery record lines on stderr say whether they are active again; make a new plan`,
      );
    }
    const check = checkProposal(saved, run.plan);
    if (check.stale.length > 0) {
      throw new ApplyRefused(
        `plan is stale, nothing was applied:\n${check.stale.map((s) => `  ${s}`).join("\n")}\nMake a new plan.`,
      );
    }
    if (check.altered.length > 0) {
      throw new ApplyRefused(
        `${file} does not match the plan its config and the live state give, so nothing was applied (the file was altered, or made by another doohctl):\n${shortList(check.altered)}\nMake a new plan.`,
      );
    }
    return {
      plan: run.plan,
      desired,
      client,
      recovery: run.recovery,
      recorded: run.recorded,
      connection,
    };
  } catch (error) {
    await client.close();
    throw error;
  }
}

/** Campaigns a plan sets active (reactivations of the recovery record among them). */
function reactivatedCampaigns(plan: Plan): Set<string> {
  return new Set(
    plan.changes.flatMap((c) =>
      c.kind === "update_campaign" &&
      c.campaign.campaign_id !== undefined &&
      c.fields.some((f) => f.field === "active" && f.after === true)
        ? [c.campaign.campaign_id]
        : [],
    ),
  );
}

function accountText(name: string | undefined): string {
  return name === undefined ? "the single account (no connection.account)" : `account ${name}`;
}
