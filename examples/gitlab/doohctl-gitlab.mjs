// GitLab API steps of examples/gitlab/.gitlab-ci.yml, shipped with doohctl so that the
// pipeline runs the version it installed: node "$(npm root --global)/doohctl/examples/gitlab/doohctl-gitlab.mjs" STEP
//
//   note KEY FILE [TITLE]   create or update the merge request's one note for KEY with FILE
//   fetch-state             restore DOOHCTL_STATE_DIR from the newest apply job of the default branch
//   reviewed-plan           on the default branch: the merged MR's newest plan, if still current
//   drift-issue FILE        open or update the one drift issue with FILE
//
// Every list is paged to its end (GitLab answers at most 100 items a page), and the merge
// request is found through the API from the commit, so squash merges, merge commits and
// merged-results pipelines are all found (never by HEAD^2). Token: GITLAB_API_TOKEN.
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";

const env = process.env;
const api = env.CI_API_V4_URL;
const project = `${api}/projects/${env.CI_PROJECT_ID}`;

function fail(message) {
  process.stderr.write(`doohctl-gitlab: ${message}\n`);
  process.exit(1);
}

if (!api || !env.CI_PROJECT_ID) fail("run this inside a GitLab CI job (CI_API_V4_URL is not set)");
if (!env.GITLAB_API_TOKEN)
  fail("GITLAB_API_TOKEN is not set: add a project access token (api scope) as a CI/CD variable");

async function request(url, init = {}) {
  const response = await fetch(url, {
    ...init,
    headers: { "PRIVATE-TOKEN": env.GITLAB_API_TOKEN, "Content-Type": "application/json", ...init.headers },
  });
  if (!response.ok) fail(`${init.method ?? "GET"} ${url.replace(api, "")} answered ${response.status}`);
  return response;
}

/** Every item of a list, page after page (x-next-page is empty on the last one). */
async function* pages(path, query = "") {
  let page = "1";
  while (page) {
    const response = await request(`${project}${path}?per_page=100&page=${page}${query}`);
    yield* await response.json();
    page = response.headers.get("x-next-page") ?? "";
  }
}

async function find(path, query, predicate) {
  for await (const item of pages(path, query)) if (predicate(item)) return item;
  return undefined;
}

async function note(key, file, title) {
  const iid = env.CI_MERGE_REQUEST_IID;
  if (!iid) return;
  const marker = `<!-- doohctl:${key} -->`;
  const text = readFileSync(file, "utf8");
  const body = `${marker}\n${title ? `### ${title}\n\n` : ""}${text}\n\n[pipeline](${env.CI_PIPELINE_URL})`;
  const notes = `/merge_requests/${iid}/notes`;
  const mine = await find(notes, "", (n) => n.body?.startsWith(marker));
  const url = mine ? `${project}${notes}/${mine.id}` : `${project}${notes}`;
  await request(url, { method: mine ? "PUT" : "POST", body: JSON.stringify({ body }) });
}

async function fetchState() {
  const dir = env.DOOHCTL_STATE_DIR;
  if (!dir) fail("DOOHCTL_STATE_DIR is not set");
  mkdirSync(dir, { recursive: true });
  // Failed applies count most: an interrupted one is what leaves campaigns paused.
  const job = await find("/jobs", "&scope[]=success&scope[]=failed", (j) => {
    return j.name === "apply" && j.ref === env.CI_DEFAULT_BRANCH && j.artifacts_file;
  });
  if (!job) return console.log("no apply job with a recovery state yet");
  const response = await fetch(`${project}/jobs/${job.id}/artifacts/doohctl-state.tar.gz`, {
    headers: { "PRIVATE-TOKEN": env.GITLAB_API_TOKEN },
  });
  if (response.status === 404) return console.log(`apply job ${job.id} kept no recovery state`);
  if (!response.ok) fail(`the recovery state of apply job ${job.id} answered ${response.status}`);
  writeFileSync("doohctl-state.tar.gz", Buffer.from(await response.arrayBuffer()));
  execFileSync("tar", ["-xzf", "doohctl-state.tar.gz", "-C", dir]);
  console.log(`recovery state of apply job ${job.id} restored`);
}

/** Single-quoted for the shell that sources doohctl.env. */
const quoted = (value) => `'${String(value).replaceAll("'", "'\\''")}'`;

/** Writes doohctl.env (DOOHCTL_MODE=reviewed|head, DOOHCTL_REASON, CI_MERGE_REQUEST_IID). */
async function reviewedPlan() {
  const out = (line) => appendFileSync("doohctl.env", `${line}\n`);
  const head = (reason) => {
    out("DOOHCTL_MODE=head");
    out(`DOOHCTL_REASON=${quoted(reason)}`);
    console.log(`Not the reviewed plan: ${reason}. Planning the default branch's HEAD.`);
  };
  writeFileSync("doohctl.env", "");
  const mrs = [];
  for await (const mr of pages(`/repository/commits/${env.CI_COMMIT_SHA}/merge_requests`)) mrs.push(mr);
  const mr = mrs.find((m) => m.state === "merged") ?? mrs[0];
  if (!mr) return head("no merge request merged this commit (a direct push or a manual run)");
  out(`CI_MERGE_REQUEST_IID=${mr.iid}`);
  // The MR's pipelines, newest first: branch and merged-results pipelines alike.
  let plan;
  for await (const pipeline of pages(`/merge_requests/${mr.iid}/pipelines`)) {
    plan = await find(`/pipelines/${pipeline.id}/jobs`, "&scope[]=success", (j) => j.name === "plan");
    if (plan) break;
  }
  if (!plan) return head(`merge request !${mr.iid} has no successful plan`);
  for (const file of ["plan.json", "config-tree.txt"]) {
    const response = await request(`${project}/jobs/${plan.id}/artifacts/${file}`);
    writeFileSync(`reviewed-${file}`, Buffer.from(await response.arrayBuffer()));
  }
  const tree = execFileSync("git", ["rev-parse", "HEAD:campaigns"], { encoding: "utf8" }).trim();
  if (readFileSync("reviewed-config-tree.txt", "utf8").trim() !== tree) {
    return head(`the default branch's config changed after !${mr.iid} was planned (another merge)`);
  }
  writeFileSync("plan.json", readFileSync("reviewed-plan.json"));
  out("DOOHCTL_MODE=reviewed");
}

async function driftIssue(file) {
  const description = readFileSync(file, "utf8");
  const open = await find("/issues", "&labels=doohctl-drift&state=opened", () => true);
  const body = JSON.stringify({
    title: "doohctl: live campaigns drifted from git",
    labels: "doohctl-drift",
    description,
  });
  if (open) await request(`${project}/issues/${open.iid}`, { method: "PUT", body });
  else await request(`${project}/issues`, { method: "POST", body });
}

const [step, ...args] = process.argv.slice(2);
// A failed step is one line with its cause (fetch failed: ECONNREFUSED, ENOTFOUND...), not a stack.
process.on("uncaughtException", (error) => {
  const cause = error?.cause?.code ?? error?.cause?.message;
  fail(`${step}: ${error?.message ?? error}${cause ? ` (${cause})` : ""}`);
});
if (step === "note") await note(args[0], args[1], args[2]);
else if (step === "fetch-state") await fetchState();
else if (step === "reviewed-plan") await reviewedPlan();
else if (step === "drift-issue") await driftIssue(args[0]);
else fail(`unknown step ${step}: use note, fetch-state, reviewed-plan or drift-issue`);
