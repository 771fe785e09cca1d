// The GitLab API and git calls shared by the pipeline helpers doohctl-gitlab.mjs (one account)
// and doohctl-gitlab-accounts.mjs (the fan-out, docs/ci.md): every list paged to its end,
// every failure one line naming the call. Token: GITLAB_API_TOKEN.
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";

export const env = process.env;
export const api = env.CI_API_V4_URL;
export const project = `${api}/projects/${env.CI_PROJECT_ID}`;

export function fail(message) {
  process.stderr.write(`doohctl-gitlab: ${message}\n`);
  process.exit(1);
}

if (!api || !env.CI_PROJECT_ID) fail("run this inside a GitLab CI job (CI_API_V4_URL is not set)");
if (!env.GITLAB_API_TOKEN)
  fail("GITLAB_API_TOKEN is not set: add a project access token (api scope) as a CI/CD variable");

/** A file this step was given, or a clear failure naming it. */
export function readText(file) {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    fail(`cannot read ${file} (${error.code ?? error.message}): the step before did not write it`);
  }
}

export async function send(url, init = {}) {
  try {
    return await fetch(url, {
      ...init,
      headers: { "PRIVATE-TOKEN": env.GITLAB_API_TOKEN, "Content-Type": "application/json", ...init.headers },
    });
  } catch (error) {
    fail(
      `${init.method ?? "GET"} ${url.replace(api, "")} could not reach GitLab (${error.cause?.code ?? error.message})`,
    );
  }
}

export async function request(url, init = {}) {
  const response = await send(url, init);
  if (!response.ok) fail(`${init.method ?? "GET"} ${url.replace(api, "")} answered ${response.status}`);
  return response;
}

/** Every item of a list, page after page (x-next-page is empty on the last one). */
export async function* pages(path, query = "") {
  let page = "1";
  while (page) {
    const response = await request(`${project}${path}?per_page=100&page=${page}${query}`);
    yield* await response.json();
    page = response.headers.get("x-next-page") ?? "";
  }
}

export async function find(path, query, predicate) {
  for await (const item of pages(path, query)) if (predicate(item)) return item;
  return undefined;
}

export const git = (...args) => execFileSync("git", args, { encoding: "utf8" }).trim();
/** The tree of `path` at `commit`, or "none" where it does not exist. */
export const treeOf = (commit, path) => {
  try {
    return git("rev-parse", `${commit}:${path}`);
  } catch {
    return "none";
  }
};
export const isAncestor = (a, b) => {
  try {
    execFileSync("git", ["merge-base", "--is-ancestor", a, b], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

export async function noteOn(iid, key, text, title) {
  const marker = `<!-- doohctl:${key} -->`;
  const body = `${marker}\n${title ? `### ${title}\n\n` : ""}${text}\n\n[pipeline](${env.CI_PIPELINE_URL})`;
  const notes = `/merge_requests/${iid}/notes`;
  const mine = await find(notes, "", (n) => n.body?.startsWith(marker));
  const url = mine ? `${project}${notes}/${mine.id}` : `${project}${notes}`;
  await request(url, { method: mine ? "PUT" : "POST", body: JSON.stringify({ body }) });
}

export async function mergeRequestOf(commit) {
  const mrs = [];
  for await (const mr of pages(`/repository/commits/${commit}/merge_requests`)) mrs.push(mr);
  return mrs.find((m) => m.state === "merged") ?? mrs[0];
}

/**
 * A refused merge (reviewed-plan): its text, the merge requests to tell and its reason are
 * kept for the `refused` step, which runs after `doohctl apply --restore-only` reactivated
 * what a stopped apply left paused, so the note names those campaigns.
 */
export function keepRefusal(text, iids, reason) {
  writeFileSync("not-applied.txt", `${text}\n`);
  writeFileSync("not-applied-iids.txt", [...iids].join(" "));
  writeFileSync("not-applied-reason.txt", reason);
  appendFileSync("doohctl.env", "DOOHCTL_MODE=refused\n");
}

/**
 * The `refused` step: `code` is `doohctl apply --restore-only`'s exit code (0: none of the
 * campaigns a stopped apply paused remains paused, 1: some do or it failed), `file` its output.
 * Notes the refusal with that on every merge request kept, prints it, and fails the job.
 */
export async function refused(key, code, file) {
  const output = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
  const headline =
    code === "0"
      ? "campaigns a stopped apply left paused: none remains paused"
      : "campaigns a stopped apply left paused: SOME REMAIN PAUSED or could not be checked (run the pipeline by hand)";
  const text = [
    readText("not-applied.txt").trimEnd(),
    "",
    `**Delivery first**: ${headline}.`,
    ...(output ? ["", "```text", output, "```"] : []),
  ].join("\n");
  const iids = readText("not-applied-iids.txt").split(" ").filter(Boolean);
  for (const iid of iids) await noteOn(iid, key, text);
  if (iids.includes(env.CI_MERGE_REQUEST_IID ?? "")) writeFileSync(`.doohctl-noted-${key}`, "");
  process.stdout.write(`${text}\n`);
  fail(`not applied: ${readText("not-applied-reason.txt")}; ${headline}: ${output.split("\n").join(" ")}`);
}

/**
 * The campaigns the recovery record still holds paused, as `doohctl status PATH --format json`
 * alerts them ("paused by apply"): lines `campaign ID "NAME" (insertion order IO)`, or
 * undefined when status could not tell (an error, or an unreadable record: DOOH206).
 */
export function stillPaused(path) {
  let out;
  let code = 0;
  try {
    out = execFileSync("doohctl", ["status", path, "--format", "json"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
  } catch (error) {
    out = String(error.stdout ?? "");
    code = error.status ?? 1;
  }
  if (code !== 0 && code !== 2) return undefined;
  let report;
  try {
    report = JSON.parse(out);
  } catch {
    return undefined;
  }
  const paused = (report.campaigns ?? [])
    .filter((c) => (c.alerts ?? []).some((a) => a.kind === "paused by apply"))
    // A name is the DSP's text: no control character reaches the log or the note.
    .map(
      (c) =>
        `campaign ${c.id} "${String(c.name).replace(/\p{Cc}/gu, "?")}" (insertion order ${c.insertion_order_id})`,
    );
  if (paused.length === 0 && code === 2 && report.summary?.alerting === 0) return undefined;
  return paused;
}

/**
 * (after_script) A cancelled apply job's report: the cancel's SIGTERM reached doohctl too, which
 * sends no further change, reactivates what it paused and reports into `file`, then the
 * subshell that outlives the cancel writes its exit code into `file.exit` (.gitlab-ci.yml).
 * Waits for that at most DOOHCTL_CANCEL_WAIT seconds (60, a window of the published write
 * limit), so the report is whole and the reactivation is not cut short by the job's end, then
 * shows the report in the job's log. doohctl's own text: the DSP's names in it are escaped.
 */
export async function showCancelledReport(file) {
  if (!existsSync(file)) return console.log(`doohctl apply was cancelled before it started: no ${file}`);
  const seconds = Number(env.DOOHCTL_CANCEL_WAIT || 60);
  const deadline = Date.now() + seconds * 1000;
  while (!existsSync(`${file}.exit`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  const code = existsSync(`${file}.exit`) ? readFileSync(`${file}.exit`, "utf8").trim() : undefined;
  console.log(
    code === undefined
      ? `doohctl apply, cancelled, still ran ${seconds} s later (DOOHCTL_CANCEL_WAIT); its report so far (${file}):`
      : `doohctl apply, cancelled, exited ${code}; its report (${file}):`,
  );
  process.stdout.write(readFileSync(file, "utf8"));
}

/** What a cancelled apply job says, on its merge request and in its log: the campaigns it left paused. */
export function cancelledText(path, rerun) {
  const paused = stillPaused(path);
  return [
    `**doohctl apply: job [${env.CI_JOB_NAME}](${env.CI_JOB_URL}) was cancelled.**`,
    "",
    paused === undefined
      ? "What it left paused could not be read (see the job's log): campaigns it paused may still be paused."
      : paused.length === 0
        ? "No campaign it paused is left paused."
        : [
            "It left these campaigns PAUSED: they deliver nothing until they are reactivated.",
            "",
            // A name is the DSP's text: in a fence, no link, image, HTML or mention of it acts.
            "```text",
            ...paused.map((p) => `- ${p}`),
            "```",
          ].join("\n"),
    "",
    "The recovery record is kept: the next apply job reactivates what is still paused first, even one that refuses to apply its merge. Without waiting for a merge, run a pipeline by hand, which plans the default branch's HEAD (its plan reactivates them) and applies it:",
    "",
    "```sh",
    rerun,
    "```",
  ].join("\n");
}
