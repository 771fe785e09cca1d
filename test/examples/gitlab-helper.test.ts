/**
 * examples/gitlab/doohctl-gitlab.mjs against a small fake of the GitLab API on port 0: the
 * reviewed plan is found through the merge request (no HEAD^2) and applied only while current
 * and based on the last applied commit, every list is paged past its first 100 items, and the
 * one MR note is updated, not duplicated.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const HELPER = join(import.meta.dirname, "../../examples/gitlab/doohctl-gitlab.mjs");
const run = promisify(execFile);

interface Call {
  method: string;
  path: string;
  body: string;
}

/** GitLab's paging: `per_page` items from `page`, `x-next-page` empty on the last page. */
function paged(items: unknown[], url: URL): { body: unknown[]; next: string } {
  const perPage = Number(url.searchParams.get("per_page") ?? 20);
  const page = Number(url.searchParams.get("page") ?? 1);
  const next = page * perPage < items.length ? String(page + 1) : "";
  return { body: items.slice((page - 1) * perPage, page * perPage), next };
}

describe("doohctl-gitlab.mjs", () => {
  let server: Server;
  let origin: string;
  let repo: string;
  const calls: Call[] = [];
  // 150 pipelines of MR !7, newest first; only the 130th holds a successful plan job.
  const pipelines = Array.from({ length: 150 }, (_, i) => ({ id: 1000 - i }));
  const notes = Array.from({ length: 120 }, (_, i) => ({ id: i + 1, body: `comment ${i}` }));
  notes[110] = { id: 111, body: "<!-- doohctl:plan -->\nold plan" };
  let tree = "";
  /** The commit the last successful apply job applied, and the merge of MR !7 after it. */
  let applied = "";
  let merged = "";
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: repo,
      encoding: "utf8",
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@t",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@t",
      },
    }).trim();

  beforeAll(async () => {
    repo = mkdtempSync(join(tmpdir(), "doohctl-gitlab-"));
    mkdirSync(join(repo, "campaigns"));
    writeFileSync(join(repo, "campaigns", "io.yaml"), "version: 1\n");
    git("init", "--quiet");
    git("add", ".");
    git("commit", "--quiet", "-m", "config");
    applied = git("rev-parse", "HEAD");
    writeFileSync(join(repo, "campaigns", "io.yaml"), "version: 1\n# !7\n");
    git("commit", "--quiet", "-am", "Merge branch 'mr-7'");
    merged = git("rev-parse", "HEAD");
    tree = git("rev-parse", "HEAD:campaigns");
    server = createServer((req: IncomingMessage, res) => {
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => {
        const url = new URL(req.url ?? "/", "http://x");
        calls.push({ method: req.method ?? "", path: url.pathname, body });
        const send = (status: number, value: unknown, next = "") => {
          res.writeHead(status, { "content-type": "application/json", "x-next-page": next });
          res.end(typeof value === "string" ? value : JSON.stringify(value));
        };
        const path = url.pathname.replace("/api/v4/projects/42", "");
        if (req.headers["private-token"] !== "glpat-test") return send(401, { message: "401" });
        if (/^\/repository\/commits\/[0-9a-f]{40}\/merge_requests$/.test(path))
          return send(200, [{ iid: 7, state: "merged" }]);
        if (path === "/jobs")
          return send(200, [
            { id: 9, name: "apply", ref: "main", status: "success", commit: { id: applied } },
          ]);
        if (path === "/merge_requests/7/pipelines") {
          const { body: page, next } = paged(pipelines, url);
          return send(200, page, next);
        }
        const jobs = path.match(/^\/pipelines\/(\d+)\/jobs$/);
        if (jobs) return send(200, Number(jobs[1]) === 871 ? [{ id: 5, name: "plan" }] : []);
        if (path === "/jobs/5/artifacts/plan.json") return send(200, '{"format_version": 1}');
        if (path === "/jobs/5/artifacts/config-tree.txt") return send(200, `${tree}\n`);
        if (path === "/jobs/5/artifacts/base-commit.txt") return send(200, `${applied}\n`);
        if (path === "/merge_requests/7/notes" && req.method === "GET") {
          const { body: page, next } = paged(notes, url);
          return send(200, page, next);
        }
        if (path === "/merge_requests/7/notes/111" && req.method === "PUT") return send(200, {});
        if (path === "/merge_requests/7/notes" && req.method === "POST") return send(201, {});
        return send(404, { message: "404 Not Found" });
      });
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  const env = (extra: Record<string, string> = {}) => ({
    PATH: process.env.PATH ?? "",
    CI_API_V4_URL: `${origin}/api/v4`,
    CI_PROJECT_ID: "42",
    CI_COMMIT_SHA: merged,
    CI_DEFAULT_BRANCH: "main",
    CI_PIPELINE_URL: "https://gitlab.example/p/1",
    GITLAB_API_TOKEN: "glpat-test",
    ...extra,
  });

  it("finds the merged MR's newest plan on the second page of its pipelines and takes it while current", async () => {
    await run("node", [HELPER, "reviewed-plan"], { cwd: repo, env: env() });
    const dotenv = readFileSync(join(repo, "doohctl.env"), "utf8");
    expect(dotenv).toBe("CI_MERGE_REQUEST_IID=7\nDOOHCTL_MODE=reviewed\n");
    expect(readFileSync(join(repo, "plan.json"), "utf8")).toBe('{"format_version": 1}');
    const pages = calls.filter((c) => c.path.endsWith("/merge_requests/7/pipelines"));
    expect(pages).toHaveLength(2);
  });

  it("applies nothing, restores first, then notes the MR and fails when the config changed after the plan", async () => {
    writeFileSync(join(repo, "campaigns", "io.yaml"), "version: 1\n# changed\n");
    git("commit", "--quiet", "-am", "x");
    const head = env({ CI_COMMIT_SHA: git("rev-parse", "HEAD") });
    // reviewed-plan keeps the refusal for after `doohctl apply --restore-only`, and applies nothing.
    const kept = await run("node", [HELPER, "reviewed-plan"], { cwd: repo, env: head });
    expect(kept.stdout).toContain("Not applied: the default branch's config changed after !7 was planned");
    expect(readFileSync(join(repo, "doohctl.env"), "utf8")).toBe(
      "CI_MERGE_REQUEST_IID=7\nDOOHCTL_MODE=refused\n",
    );
    expect(calls.some((c) => c.method === "POST" && c.path.endsWith("/notes"))).toBe(false);
    // The refused step, told that the restore left nothing paused, notes the MR and fails.
    writeFileSync(join(repo, "restore.txt"), "Recovery record: nothing to settle\n");
    const failed = await run("node", [HELPER, "refused", "0", "restore.txt"], { cwd: repo, env: head }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr).toContain(
      "not applied: the default branch's config changed after !7 was planned",
    );
    const note = calls.find((c) => c.method === "POST" && c.path.endsWith("/merge_requests/7/notes"));
    const body = JSON.parse(note?.body ?? "{}").body as string;
    expect(body).toMatch(/^<!-- doohctl:apply -->\n\*\*doohctl apply did not run/);
    expect(body).toContain("**Delivery first**: campaigns a stopped apply left paused: none remains paused.");
  });

  it("updates the MR's one plan note found past the first 100 notes", async () => {
    writeFileSync(join(repo, "plan.md"), "### doohctl plan: no changes\n");
    await run("node", [HELPER, "note", "plan", "plan.md"], {
      cwd: repo,
      env: env({ CI_MERGE_REQUEST_IID: "7" }),
    });
    const put = calls.find((c) => c.method === "PUT");
    expect(put?.path).toBe("/api/v4/projects/42/merge_requests/7/notes/111");
    expect(JSON.parse(put?.body ?? "{}").body).toMatch(
      /^<!-- doohctl:plan -->\n### doohctl plan: no changes\n/,
    );
    expect(calls.filter((c) => c.method === "POST" && c.body.includes("doohctl:plan"))).toEqual([]);
  });
});
