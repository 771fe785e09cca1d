// GitLab API steps of examples/gitlab/.gitlab-ci.yml, shipped with doohctl so that the
// pipeline runs the version it installed: node "$HOME/.doohctl/node_modules/doohctl/examples/gitlab/doohctl-gitlab.mjs" STEP
//
//   check-credentials       fail when the write user is visible where it must not be (or absent from apply)
//   note KEY FILE [TITLE]   create or update the merge request's one note for KEY with FILE
//   job-failed KEY          (after_script) when the job failed before its note for KEY, say so on the MR
//   fetch-state             restore DOOHCTL_STATE_DIR from the newest apply job of the default branch
//                           that left one, whatever its status (success, failed, canceled)
//   reviewed-plan           on the default branch: the merged MR's reviewed plan, when it is current
//                           and every merge before it was applied; else DOOHCTL_MODE=refused
//   refused CODE FILE       after `doohctl apply --restore-only` (exit CODE, output FILE) of a refused
//                           merge: note what was not applied and what was reactivated, and fail
//   job-failed apply        also, of a cancelled apply job: its report (once doohctl ended, at most
//                           DOOHCTL_CANCEL_WAIT seconds) and the campaigns it left paused
//   drift-merge-request REPORT PULL
//                           commit what `doohctl pull` wrote on doohctl/drift and open or update
//                           the one merge request from it, with PULL's output and the REPORT
//
// Every list is paged to its end (GitLab answers at most 100 items a page), and the merge
// request is found through the API from the commit, so squash merges, merge commits and
// merged-results pipelines are all found (never by HEAD^2). Token: GITLAB_API_TOKEN.
import { execFileSync } from "node:child_process";
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import {
  cancelledText,
  env,
  fail,
  find,
  git,
  isAncestor,
  keepRefusal,
  mergeRequestOf,
  noteOn,
  pages,
  project,
  readText,
  refused,
  request,
  send,
  showCancelledReport,
  treeOf,
} from "./gitlab-api.mjs";

const DRIFT_BRANCH = "doohctl/drift";
const tree = (commit) => treeOf(commit, "campaigns");

/**
 * Project CI/CD variables override a job's `variables:`: an unscoped DOOHCTL_EMAIL would make
 * the plan and drift jobs run as the write user. Values are compared, never printed.
 */
async function checkCredentials() {
  const scoping =
    "scope the write user's CI/CD variables DOOHCTL_EMAIL and DOOHCTL_PASSWORD to the `production` environment and protect them (examples/gitlab/.gitlab-ci.yml, CI/CD variables)";
  if (env.CI_JOB_NAME === "apply") {
    if (!env.DOOHCTL_EMAIL || !env.DOOHCTL_PASSWORD)
      fail(
        `the apply job has no write user (DOOHCTL_EMAIL, DOOHCTL_PASSWORD): protect the default branch and ${scoping}`,
      );
  } else {
    if (!env.DOOHCTL_PLAN_EMAIL || !env.DOOHCTL_PLAN_PASSWORD)
      fail(
        "DOOHCTL_PLAN_EMAIL or DOOHCTL_PLAN_PASSWORD is not given to this job: add them as CI/CD variables, NOT protected",
      );
    if (env.DOOHCTL_EMAIL !== env.DOOHCTL_PLAN_EMAIL || env.DOOHCTL_PASSWORD !== env.DOOHCTL_PLAN_PASSWORD)
      fail(
        `job ${env.CI_JOB_NAME} would log in as another user than the plan user: a project variable DOOHCTL_EMAIL or DOOHCTL_PASSWORD overrides the job's; ${scoping}`,
      );
  }
  // What the job cannot see: the variables' settings, readable by a Maintainer token only.
  const response = await send(`${project}/variables?per_page=100`);
  if (!response.ok)
    return console.log(
      `variable scoping checked from this job's variables (the token cannot read the project's: ${response.status})`,
    );
  const wrong = (await response.json())
    .filter((v) => v.key === "DOOHCTL_EMAIL" || v.key === "DOOHCTL_PASSWORD")
    .filter((v) => !v.protected || v.environment_scope !== "production")
    .map((v) => v.key);
  if (wrong.length > 0) fail(`${wrong.join(", ")} not protected and scoped to production: ${scoping}`);
}

async function note(key, file, title) {
  const iid = env.CI_MERGE_REQUEST_IID;
  if (!iid) return;
  await noteOn(iid, key, readText(file), title);
  writeFileSync(`.doohctl-noted-${key}`, "");
}

async function jobFailed(key) {
  if (env.CI_JOB_STATUS === "success" || existsSync(`.doohctl-noted-${key}`)) return;
  let iid = env.CI_MERGE_REQUEST_IID;
  if (!iid && existsSync("doohctl.env"))
    iid = /^CI_MERGE_REQUEST_IID=(\d+)$/m.exec(readFileSync("doohctl.env", "utf8"))?.[1];
  // A cancelled apply may have been ended before it reactivated what it paused (docs/apply.md,
  // In CI): its report, then what the recovery record still holds paused, in the log and on the MR.
  if (key === "apply" && env.CI_JOB_STATUS === "canceled") await showCancelledReport("apply.txt");
  const cancelled =
    key === "apply" && env.CI_JOB_STATUS === "canceled"
      ? cancelledText("campaigns/", `glab ci run --branch ${env.CI_DEFAULT_BRANCH}`)
      : undefined;
  if (cancelled) process.stdout.write(`${cancelled}\n`);
  if (!iid) return;
  const text =
    cancelled ??
    `**doohctl ${key}: job [${env.CI_JOB_NAME}](${env.CI_JOB_URL}) ${env.CI_JOB_STATUS}** before it reported a result: nothing here is current. Read the job's log.`;
  await noteOn(iid, key, text);
}

async function fetchState() {
  const dir = env.DOOHCTL_STATE_DIR;
  if (!dir) fail("DOOHCTL_STATE_DIR is not set");
  // doohctl refuses a state directory others could write (docs/apply.md): 0700.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Every status: a failed or cancelled apply is the one most likely to have left campaigns
  // paused. Newest first; a job cancelled before it started left no state, and the one before
  // it is then the last that ran.
  for await (const job of pages("/jobs")) {
    if (job.name !== "apply" || job.ref !== env.CI_DEFAULT_BRANCH || String(job.id) === env.CI_JOB_ID)
      continue;
    const response = await send(`${project}/jobs/${job.id}/artifacts/doohctl-state.tar.gz`);
    if (response.status === 404) {
      console.log(`apply job ${job.id} (${job.status}) left no recovery state; looking at the one before`);
      continue;
    }
    if (!response.ok) fail(`the recovery state of apply job ${job.id} answered ${response.status}`);
    writeFileSync("doohctl-state.tar.gz", Buffer.from(await response.arrayBuffer()));
    execFileSync("tar", ["-xzf", "doohctl-state.tar.gz", "-C", dir]);
    // The archive's "." sets the directory's mode: an earlier job's may be 0755.
    chmodSync(dir, 0o700);
    return console.log(`recovery state of apply job ${job.id} (${job.status}) restored`);
  }
  console.log("no apply job with a recovery state yet");
}

/** The commit the newest successful apply applied: of those, the one every other is an ancestor of. */
async function lastApplied() {
  let best;
  let seen = 0;
  for await (const job of pages("/jobs", "&scope[]=success")) {
    if (job.name !== "apply" || job.ref !== env.CI_DEFAULT_BRANCH || !job.commit?.id) continue;
    if (!best || isAncestor(best, job.commit.id)) best = job.commit.id;
    if (++seen >= 20) break;
  }
  return best;
}

/** Writes doohctl.env (DOOHCTL_MODE=reviewed|head|done, CI_MERGE_REQUEST_IID), or fails naming what was not applied. */
async function reviewedPlan() {
  const out = (line) => appendFileSync("doohctl.env", `${line}\n`);
  writeFileSync("doohctl.env", "");
  const sha = env.CI_COMMIT_SHA;
  if (env.CI_PIPELINE_SOURCE === "web") {
    out("DOOHCTL_MODE=head");
    return console.log(
      `A pipeline run by hand: planning and applying ${env.CI_DEFAULT_BRANCH}'s HEAD (${sha}) in full.`,
    );
  }
  const applied = await lastApplied();
  if (applied && isAncestor(sha, applied)) {
    out("DOOHCTL_MODE=done");
    return console.log(`${sha} was applied already (apply of ${applied}).`);
  }
  const mr = await mergeRequestOf(sha);
  if (mr) out(`CI_MERGE_REQUEST_IID=${mr.iid}`);
  let unapplied = [];
  if (applied && tree(applied) !== tree(`${sha}^1`)) {
    // The commits since the last applied one, before this push, that changed the config.
    // Full hashes: the API finds a merge request by its merge commit's full SHA.
    const log = git("log", "--first-parent", "--format=%H %s", `${applied}..${sha}^1`, "--", "campaigns/");
    unapplied = log ? log.split("\n") : [];
  }
  let reason;
  if (!applied) reason = "no apply job succeeded yet: nothing tells which merges were applied";
  else if (!mr) reason = `no merge request merged ${sha} (a direct push): it has no reviewed plan`;
  else reason = await reviewedPlanOf(mr, applied);
  if (!reason) {
    out("DOOHCTL_MODE=reviewed");
    return console.log(`Applying the reviewed plan of !${mr.iid}.`);
  }
  const text = [
    `**doohctl apply did not run for ${sha}**: ${reason}.`,
    ...(unapplied.length
      ? [
          "",
          "Merges not applied (they are not in this merge's reviewed plan):",
          "",
          ...unapplied.map((l) => `- ${l.slice(0, 12)}${l.slice(40)}`),
        ]
      : []),
    "",
    `Nothing was applied. See what ${env.CI_DEFAULT_BRANCH}'s HEAD would change (\`doohctl plan campaigns/\`), then run a pipeline by hand on ${env.CI_DEFAULT_BRANCH} (Build > Pipelines > Run pipeline), which plans and applies it in full, every merge since the last applied commit:`,
    "",
    "```sh",
    `glab ci run --branch ${env.CI_DEFAULT_BRANCH}`,
    "```",
  ].join("\n");
  const iids = new Set(mr ? [mr.iid] : []);
  for (const line of unapplied) {
    const other = await mergeRequestOf(line.split(" ")[0]);
    if (other) iids.add(other.iid);
  }
  // The job reactivates what a stopped apply left paused, then `refused` notes and fails.
  keepRefusal(text, iids, reason);
  console.log(`Not applied: ${reason}. Reactivating what a stopped apply left paused first.`);
}

/** Why the MR's newest successful plan cannot be applied, or undefined (and plan.json written). */
async function reviewedPlanOf(mr, applied) {
  let plan;
  for await (const pipeline of pages(`/merge_requests/${mr.iid}/pipelines`)) {
    plan = await find(`/pipelines/${pipeline.id}/jobs`, "&scope[]=success", (j) => j.name === "plan");
    if (plan) break;
  }
  if (!plan) return `merge request !${mr.iid} has no successful plan`;
  for (const file of ["plan.json", "config-tree.txt", "base-commit.txt"]) {
    const response = await request(`${project}/jobs/${plan.id}/artifacts/${file}`);
    writeFileSync(`reviewed-${file}`, Buffer.from(await response.arrayBuffer()));
  }
  const read = (file) => readFileSync(`reviewed-${file}`, "utf8").trim();
  if (read("config-tree.txt") !== tree(env.CI_COMMIT_SHA))
    return `the default branch's config changed after !${mr.iid} was planned (another merge landed; no current plan was reviewed)`;
  // Squash, merge and fast-forward merges alike: the plan must start from what was applied.
  if (tree(read("base-commit.txt")) !== tree(applied))
    return `merges before this one were not applied (their job failed or was cancelled): !${mr.iid} was planned from a config that is not the one last applied (${applied.slice(0, 12)})`;
  writeFileSync("plan.json", readFileSync("reviewed-plan.json"));
  return undefined;
}

/**
 * Drift that `doohctl pull` wrote into the checkout: committed on DRIFT_BRANCH (made afresh
 * from this pipeline's commit and overwritten: the branch is this job's) through the API, and
 * proposed in one merge request whose description is what pull wrote (live pauses first, then
 * its summary), the diff alone, and the drift report with its money table; an open one is updated.
 */
/**
 * Whether `branch` is one commit on CI_COMMIT_SHA changing exactly these files to these
 * contents: then committing again would only rerun the merge request's pipeline and reset
 * its approvals.
 */
async function branchHolds(branch, actions) {
  const ref = encodeURIComponent(branch);
  const response = await send(`${project}/repository/branches/${ref}`);
  if (response.status === 404) return false;
  if (!response.ok) fail(`GET /repository/branches/${ref} answered ${response.status}`);
  const head = (await response.json()).commit;
  if (head?.parent_ids?.length !== 1 || head.parent_ids[0] !== env.CI_COMMIT_SHA) return false;
  const compare = await request(`${project}/repository/compare?from=${env.CI_COMMIT_SHA}&to=${head.id}`);
  const paths = ((await compare.json()).diffs ?? []).map((d) => d.new_path).sort();
  if (
    paths.join("\n") !==
    actions
      .map((a) => a.file_path)
      .sort()
      .join("\n")
  )
    return false;
  for (const a of actions) {
    const raw = await request(
      `${project}/repository/files/${encodeURIComponent(a.file_path)}/raw?ref=${head.id}`,
    );
    if ((await raw.text()) !== a.content) return false;
  }
  return true;
}

async function driftMergeRequest(reportFile, pullFile) {
  const report = readText(reportFile);
  const pulled = readText(pullFile);
  const branch = DRIFT_BRANCH;
  const target = env.CI_DEFAULT_BRANCH;
  const changed = git("diff", "--name-only", "--", "campaigns/").split("\n").filter(Boolean);
  if (changed.length === 0)
    fail(
      "plan reports drift but doohctl pull changed no file: read the plan above and decide (apply, or edit the config)",
    );
  const actions = changed.map((path) => ({ action: "update", file_path: path, content: readText(path) }));
  if (await branchHolds(branch, actions))
    console.log(`${branch} already holds this drift on this commit: not committed again`);
  else
    await request(`${project}/repository/commits`, {
      method: "POST",
      body: JSON.stringify({
        branch,
        start_sha: env.CI_COMMIT_SHA,
        force: true,
        commit_message: "doohctl pull: accept the live campaigns' drift",
        actions,
      }),
    });
  // pull's text output is two kinds of line (docs/pull.md, Output): a diff's lines start with
  // -, +, a space or @; its other lines (live pauses, notes, the summary) with a word.
  const lines = pulled.trimEnd().split("\n");
  const description = [
    "Live campaigns drifted from git. This merge request writes the live values into the config (`doohctl pull`): merge it to accept them, or close it and run the apply pipeline by hand to revert the DSP. Its plan should show no change for the pulled fields.",
    "",
    "### What pull wrote (campaigns paused live first)",
    "",
    "````text",
    ...lines.filter((line) => line !== "" && !/^[-+ @]/.test(line)),
    "````",
    "",
    "### The pulled change: one diff per file, in the order pull reads the config (a directory's files by name)",
    "",
    "````diff",
    ...lines.filter((line) => /^[-+ @]/.test(line)),
    "````",
    "",
    "### The drift report (what apply would do instead)",
    "",
    report,
    "",
    `[pipeline](${env.CI_PIPELINE_URL})`,
  ].join("\n");
  const query = `&state=opened&source_branch=${encodeURIComponent(branch)}&target_branch=${encodeURIComponent(target)}`;
  const open = await find("/merge_requests", query, () => true);
  if (open) {
    await request(`${project}/merge_requests/${open.iid}`, {
      method: "PUT",
      body: JSON.stringify({ description }),
    });
    return console.log(`updated merge request !${open.iid}`);
  }
  const response = await request(`${project}/merge_requests`, {
    method: "POST",
    body: JSON.stringify({
      source_branch: branch,
      target_branch: target,
      title: "doohctl: accept the live campaigns' drift",
      description,
      remove_source_branch: true,
    }),
  });
  console.log(`opened merge request !${(await response.json()).iid}`);
}

const [step, ...args] = process.argv.slice(2);
// A failed step is one line with its cause (fetch failed: ECONNREFUSED, ENOTFOUND...), not a stack.
process.on("uncaughtException", (error) => {
  const cause = error?.cause?.code ?? error?.cause?.message;
  fail(`${step}: ${error?.message ?? error}${cause ? ` (${cause})` : ""}`);
});
if (step === "check-credentials") await checkCredentials();
else if (step === "note") await note(args[0], args[1], args[2]);
else if (step === "job-failed") await jobFailed(args[0]);
else if (step === "fetch-state") await fetchState();
else if (step === "reviewed-plan") await reviewedPlan();
else if (step === "refused") await refused("apply", args[0], args[1]);
else if (step === "drift-merge-request") await driftMergeRequest(args[0], args[1]);
else
  fail(
    `unknown step ${step}: use check-credentials, note, job-failed, fetch-state, reviewed-plan, refused or drift-merge-request`,
  );
