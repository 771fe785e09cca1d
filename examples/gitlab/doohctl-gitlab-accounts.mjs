// GitLab API steps of the fan-out apply jobs (doohctl-accounts-apply-jobs.yml), one account
// each: the single-account steps of doohctl-gitlab.mjs, keyed by the account (docs/ci.md).
//
//   fetch-state    restore DOOHCTL_STATE_DIR from the newest apply job OF THIS ACCOUNT on the
//                  default branch that left one, whatever its status
//   reviewed-plan  the merged MR's reviewed plan of this account, when it is current and every
//                  merge before it was applied to this account; else DOOHCTL_MODE=refused
//   refused CODE FILE  after `doohctl apply --restore-only` of a refused merge: note what was not
//                  applied and what was reactivated, and fail
//   cancelled      (after_script) of a cancelled job: its report (once doohctl ended, at most
//                  DOOHCTL_CANCEL_WAIT seconds) and the campaigns it left paused, on the MR
//
// The account is DOOHCTL_ACCOUNT (its directory DOOHCTL_ACCOUNT_PATH), as the matrix gives it.
// An account's jobs are the matrix jobs GitLab names `doohctl-apply: [<account>, ...]` and
// `doohctl-plan: [<account>, ...]`; the plans are found through the MR's pipelines and the
// child pipelines they triggered (bridges). Token: GITLAB_API_TOKEN.
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
  refused,
  request,
  send,
  showCancelledReport,
  treeOf,
} from "./gitlab-api.mjs";

const account = env.DOOHCTL_ACCOUNT ?? "";
const path = env.DOOHCTL_ACCOUNT_PATH ?? "";
if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(account) || !path)
  fail("DOOHCTL_ACCOUNT or DOOHCTL_ACCOUNT_PATH is not set: run this in a job of the accounts matrix");
const tree = (commit) => treeOf(commit, path);
/** This account's matrix job of `job` (GitLab names it by every matrix value, the account first). */
const ofAccount = (job, name) => job.name.startsWith(`${name}: [${account}, `);

async function fetchState() {
  const dir = env.DOOHCTL_STATE_DIR;
  if (!dir) fail("DOOHCTL_STATE_DIR is not set");
  // doohctl refuses a state directory others could write (docs/apply.md): 0700.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for await (const job of pages("/jobs")) {
    if (
      !ofAccount(job, "doohctl-apply") ||
      job.ref !== env.CI_DEFAULT_BRANCH ||
      String(job.id) === env.CI_JOB_ID
    )
      continue;
    const response = await send(`${project}/jobs/${job.id}/artifacts/doohctl-state.tar.gz`);
    if (response.status === 404) continue;
    if (!response.ok) fail(`the recovery state of apply job ${job.id} answered ${response.status}`);
    writeFileSync("doohctl-state.tar.gz", Buffer.from(await response.arrayBuffer()));
    execFileSync("tar", ["-xzf", "doohctl-state.tar.gz", "-C", dir]);
    // The archive's "." sets the directory's mode: an earlier job's may be 0755.
    chmodSync(dir, 0o700);
    return console.log(`recovery state of ${account}'s apply job ${job.id} (${job.status}) restored`);
  }
  console.log(`no apply job of ${account} with a recovery state yet`);
}

/** The commit this account's newest successful apply applied. */
async function lastApplied() {
  let best;
  let seen = 0;
  for await (const job of pages("/jobs", "&scope[]=success")) {
    if (!ofAccount(job, "doohctl-apply") || job.ref !== env.CI_DEFAULT_BRANCH || !job.commit?.id) continue;
    if (!best || isAncestor(best, job.commit.id)) best = job.commit.id;
    if (++seen >= 20) break;
  }
  return best;
}

/** Why the MR's newest successful plan of this account cannot be applied, or undefined (plan written). */
async function reviewedPlanOf(mr, applied) {
  let plan;
  for await (const pipeline of pages(`/merge_requests/${mr.iid}/pipelines`)) {
    for await (const bridge of pages(`/pipelines/${pipeline.id}/bridges`)) {
      const child = bridge.downstream_pipeline?.id;
      if (child)
        plan = await find(`/pipelines/${child}/jobs`, "&scope[]=success", (j) =>
          ofAccount(j, "doohctl-plan"),
        );
      if (plan) break;
    }
    if (plan) break;
  }
  if (!plan) return `merge request !${mr.iid} has no successful plan of ${account}`;
  const files = [`plan-${account}.json`, `config-tree-${account}.txt`, `base-commit-${account}.txt`];
  for (const file of files) {
    const response = await request(`${project}/jobs/${plan.id}/artifacts/${file}`);
    writeFileSync(`reviewed-${file}`, Buffer.from(await response.arrayBuffer()));
  }
  const read = (file) => readFileSync(`reviewed-${file}`, "utf8").trim();
  if (read(files[1]) !== tree(env.CI_COMMIT_SHA))
    return `the default branch's ${path} changed after !${mr.iid} was planned (another merge landed; no current plan was reviewed)`;
  if (tree(read(files[2])) !== tree(applied))
    return `merges before this one were not applied to ${account} (their job failed or was cancelled): !${mr.iid} was planned from a config that is not the one last applied (${applied.slice(0, 12)})`;
  writeFileSync(`plan-${account}.json`, readFileSync(`reviewed-${files[0]}`));
  return undefined;
}

/** Writes doohctl.env (DOOHCTL_MODE=reviewed|head|done, CI_MERGE_REQUEST_IID), or fails naming what was not applied. */
async function reviewedPlan() {
  const out = (line) => appendFileSync("doohctl.env", `${line}\n`);
  writeFileSync("doohctl.env", "");
  const sha = env.CI_COMMIT_SHA;
  if (env.DOOHCTL_TRIGGER_SOURCE === "web") {
    out("DOOHCTL_MODE=head");
    return console.log(
      `A pipeline run by hand: planning and applying ${account} at ${env.CI_DEFAULT_BRANCH}'s HEAD (${sha}) in full.`,
    );
  }
  const applied = await lastApplied();
  if (applied && isAncestor(sha, applied)) {
    out("DOOHCTL_MODE=done");
    return console.log(`${sha} was applied to ${account} already (apply of ${applied}).`);
  }
  const mr = await mergeRequestOf(sha);
  if (mr) out(`CI_MERGE_REQUEST_IID=${mr.iid}`);
  let unapplied = [];
  if (applied && tree(applied) !== tree(`${sha}^1`)) {
    const log = git("log", "--first-parent", "--format=%H %s", `${applied}..${sha}^1`, "--", `${path}/`);
    unapplied = log ? log.split("\n") : [];
  }
  let reason;
  if (!applied)
    reason = `no apply job of ${account} succeeded yet: nothing tells which merges were applied to it`;
  else if (!mr) reason = `no merge request merged ${sha} (a direct push): it has no reviewed plan`;
  else reason = await reviewedPlanOf(mr, applied);
  if (!reason) {
    out("DOOHCTL_MODE=reviewed");
    return console.log(`Applying the reviewed plan of ${account} in !${mr.iid}.`);
  }
  const text = [
    `**doohctl apply did not run for ${account} at ${sha}**: ${reason}.`,
    ...(unapplied.length
      ? [
          "",
          `Merges not applied to ${account}:`,
          "",
          ...unapplied.map((l) => `- ${l.slice(0, 12)}${l.slice(40)}`),
        ]
      : []),
    "",
    `Nothing was applied to ${account}. See what ${env.CI_DEFAULT_BRANCH}'s HEAD would change (\`doohctl plan ${path}\`), then run a pipeline by hand on ${env.CI_DEFAULT_BRANCH} (Build > Pipelines > Run pipeline), which plans and applies every account at its HEAD:`,
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
  keepRefusal(text, iids, `${account}: ${reason}`);
  console.log(`${account} not applied: ${reason}. Reactivating what a stopped apply left paused first.`);
}

/** (after_script) A cancelled apply job of this account names what its record still holds paused. */
async function cancelled() {
  if (env.CI_JOB_STATUS !== "canceled") return;
  await showCancelledReport("apply.txt");
  const text = cancelledText(path, `glab ci run --branch ${env.CI_DEFAULT_BRANCH}`);
  process.stdout.write(`${text}\n`);
  const iid = /^CI_MERGE_REQUEST_IID=(\d+)$/m.exec(
    existsSync("doohctl.env") ? readFileSync("doohctl.env", "utf8") : "",
  )?.[1];
  if (iid) await noteOn(iid, `apply-${account}`, text);
}

const [step] = process.argv.slice(2);
process.on("uncaughtException", (error) => {
  const cause = error?.cause?.code ?? error?.cause?.message;
  fail(`${step}: ${error?.message ?? error}${cause ? ` (${cause})` : ""}`);
});
if (step === "fetch-state") await fetchState();
else if (step === "reviewed-plan") await reviewedPlan();
else if (step === "refused") await refused(`apply-${account}`, process.argv[3], process.argv[4]);
else if (step === "cancelled") await cancelled();
else fail(`unknown step ${step}: use fetch-state, reviewed-plan, refused or cancelled`);
