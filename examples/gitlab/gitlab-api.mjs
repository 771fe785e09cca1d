// The GitLab API and git calls shared by the pipeline helpers doohctl-gitlab.mjs (one account)
// and doohctl-gitlab-accounts.mjs (the fan-out, docs/ci.md): every list paged to its end,
// every failure one line naming the call. Token: GITLAB_API_TOKEN.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

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
